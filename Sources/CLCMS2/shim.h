#pragma once
#include <lcms2.h>

// lcms2's pixel formats are macros built from other macros, which Swift does not import.
static inline cmsUInt32Number wi_cms_type_rgba_8(void) { return TYPE_RGBA_8; }
