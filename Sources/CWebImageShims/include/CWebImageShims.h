#pragma once
#include "wi_jpeg.h"
#include "wi_png.h"
#include "wi_png_rows.h"
#include "wi_xattr.h"
#include "wi_malloc.h"
