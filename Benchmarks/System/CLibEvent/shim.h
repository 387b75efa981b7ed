#include <event2/event.h>
#include <event2/thread.h>
