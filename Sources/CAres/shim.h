// c-ares (Debian's libc-ares-dev): the server's DNS lookups, with timeouts and TTLs.
#include <ares.h>
