#pragma once
#include "wi_box_shrink.h"
#include "wi_resample.h"
