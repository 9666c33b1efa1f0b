// The module is its header's inline function; this file gives the target a source of its own.
#include "CPubNodePrefetch.h"
