#include "CCurl.h"
