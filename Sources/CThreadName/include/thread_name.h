#ifndef PUSHLEDGER_THREAD_NAME_H
#define PUSHLEDGER_THREAD_NAME_H

/* Names the calling thread: what `top -H`, `perf` and /proc show (Linux keeps 15 bytes). Foundation's
 * `Thread.name` does not reliably reach the system thread on Linux, Glibc's Swift module does not export
 * pthread_setname_np, and Swift cannot call prctl (variadic). Returns 0, or -1 with errno set. */
int pl_name_this_thread(const char *name);

#endif
