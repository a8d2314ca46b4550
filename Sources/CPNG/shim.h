#pragma once
#include <png.h>
// libpng's own dependency (libpng-dev pulls zlib1g-dev): its crc32 checks APNG chunks.
#include <zlib.h>
