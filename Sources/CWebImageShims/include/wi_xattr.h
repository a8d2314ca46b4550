#pragma once
// Glibc's Swift module map leaves out <sys/xattr.h>; the disk cache keeps entry metadata in an
// extended attribute (fsetxattr/fgetxattr/getxattr/fremovexattr), so it is re-exported here.
#include <sys/xattr.h>
