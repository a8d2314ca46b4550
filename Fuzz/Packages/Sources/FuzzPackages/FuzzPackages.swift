// Empty on purpose: this target only gathers the modules the static library product archives.
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
