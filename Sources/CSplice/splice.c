/* splice.h's version calls. Every other function of splice.h is written in Swift
 * (Sources/SpliceC, @_cdecl), over the same header, so that both sides share its layouts. */
#include "splice.h"

#define SPLICE_STRING_(x) #x
#define SPLICE_STRING(x) SPLICE_STRING_(x)

const char *splice_version(void) {
    return SPLICE_STRING(SPLICE_VERSION_MAJOR) "." SPLICE_STRING(SPLICE_VERSION_MINOR) "." SPLICE_STRING(SPLICE_VERSION_PATCH);
}

int splice_version_major(void) { return SPLICE_VERSION_MAJOR; }

int splice_version_minor(void) { return SPLICE_VERSION_MINOR; }
