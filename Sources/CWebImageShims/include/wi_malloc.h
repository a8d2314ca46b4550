#pragma once
// Glibc's Swift module map leaves out <malloc.h>: mallinfo2 measures what a decode really
// allocates against its plan, and mallopt tunes when big bitmaps get pages of their own.
#include <malloc.h>
