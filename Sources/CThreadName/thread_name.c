#include "thread_name.h"

#include <sys/prctl.h>

int pl_name_this_thread(const char *name) {
#ifdef PR_SET_NAME
    return prctl(PR_SET_NAME, name, 0, 0, 0);
#else
    (void)name;
    return 0;
#endif
}
