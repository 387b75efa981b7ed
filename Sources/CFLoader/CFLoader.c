// cfl_open: dlopen a CoreFoundation implementation and resolve its functions (see CFLoader.h).
#define _GNU_SOURCE
#include "CFLoader.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Appends `name` to the comma-separated list in `missing` (bounded).
static void note_missing(char *missing, size_t size, const char *name) {
    size_t used = strlen(missing);
    snprintf(missing + used, size - used, "%s%s", used ? ", " : "", name);
}

/// Resolves `name` into `*slot`; a required one that is absent is added to `missing`.
static void resolve(void *handle, const char *name, void **slot, int required, char *missing, size_t size) {
    *slot = dlsym(handle, name);
    if (!*slot && required) note_missing(missing, size, name);
}

struct build_id_search {
    const char *path;
    char *out;
};

/// dl_iterate_phdr callback: the GNU build id of the object loaded from `search->path`, as hex.
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct build_id_search *search = data;
    if (!info->dlpi_name || strcmp(info->dlpi_name, search->path) != 0) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_NOTE) continue;
        const char *note = (const char *)(info->dlpi_addr + header->p_vaddr);
        const char *end = note + header->p_memsz;
        while (note + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *entry = (const ElfW(Nhdr) *)note;
            const unsigned char *name = (const unsigned char *)(entry + 1);
            const unsigned char *desc = name + ((entry->n_namesz + 3) & ~3u);
            if (entry->n_type == NT_GNU_BUILD_ID && entry->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                for (unsigned j = 0; j < entry->n_descsz && j < 32; j++) sprintf(search->out + 2 * j, "%02x", desc[j]);
                return 1;
            }
            note = (const char *)desc + ((entry->n_descsz + 3) & ~3u);
        }
    }
    return 1;
}

cfl_library *cfl_open(const char *path, char **error) {
    // A library this process already has (the toolchain's libFoundation.so) is used as it is: its symbols are bound
    // already, and sanitizers refuse RTLD_DEEPBIND. Any other is opened with its own symbols first.
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!handle) handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!handle) {
        const char *why = dlerror();
        size_t size = strlen(path) + (why ? strlen(why) : 0) + 64;
        *error = malloc(size);
        snprintf(*error, size, "cannot load %s: %s", path, why ? why : "dlopen failed");
        return NULL;
    }
    cfl_library *lib = calloc(1, sizeof *lib);
    lib->handle = handle;
    snprintf(lib->path, sizeof lib->path, "%s", path);
    char missing[4096] = "";
    const size_t size = sizeof missing;
#define REQUIRED(name) resolve(handle, #name, (void **)&lib->name, 1, missing, size)
#define OPTIONAL(name) resolve(handle, #name, (void **)&lib->name, 0, missing, size)
    REQUIRED(CFRunLoopGetCurrent);
    REQUIRED(CFRunLoopRunInMode);
    REQUIRED(CFRunLoopRun);
    REQUIRED(CFRunLoopStop);
    REQUIRED(CFRunLoopWakeUp);
    REQUIRED(CFRunLoopIsWaiting);
    REQUIRED(CFRunLoopCopyCurrentMode);
    REQUIRED(CFRunLoopCopyAllModes);
    REQUIRED(CFRunLoopAddCommonMode);
    REQUIRED(CFRunLoopGetNextTimerFireDate);
    REQUIRED(CFRunLoopAddSource);
    REQUIRED(CFRunLoopRemoveSource);
    REQUIRED(CFRunLoopContainsSource);
    REQUIRED(CFRunLoopAddTimer);
    REQUIRED(CFRunLoopRemoveTimer);
    REQUIRED(CFRunLoopContainsTimer);
    REQUIRED(CFRunLoopAddObserver);
    REQUIRED(CFRunLoopRemoveObserver);
    REQUIRED(CFRunLoopContainsObserver);
    OPTIONAL(CFRunLoopPerformBlock);
    OPTIONAL(CFArrayCreate);
    OPTIONAL(_CFRunLoopStopMode);
    OPTIONAL(CFRunLoopGetMain);
    REQUIRED(CFRunLoopSourceCreate);
    REQUIRED(CFRunLoopSourceSignal);
    REQUIRED(CFRunLoopSourceInvalidate);
    REQUIRED(CFRunLoopSourceIsValid);
    OPTIONAL(CFRunLoopSourceIsSignalled);
    REQUIRED(CFRunLoopTimerCreate);
    REQUIRED(CFRunLoopTimerInvalidate);
    REQUIRED(CFRunLoopTimerIsValid);
    REQUIRED(CFRunLoopTimerGetNextFireDate);
    REQUIRED(CFRunLoopTimerSetNextFireDate);
    OPTIONAL(CFRunLoopTimerGetTolerance);
    OPTIONAL(CFRunLoopTimerSetTolerance);
    REQUIRED(CFRunLoopObserverCreate);
    REQUIRED(CFRunLoopObserverInvalidate);
    REQUIRED(CFRunLoopObserverIsValid);
    REQUIRED(CFAbsoluteTimeGetCurrent);
    REQUIRED(CFStringCreateWithCString);
    REQUIRED(CFStringGetLength);
    REQUIRED(CFStringGetMaximumSizeForEncoding);
    REQUIRED(CFStringGetCString);
    REQUIRED(CFArrayGetCount);
    REQUIRED(CFArrayGetValueAtIndex);
    REQUIRED(CFRetain);
    REQUIRED(CFRelease);
#undef REQUIRED
#undef OPTIONAL
    // Data symbols: the address of the constant, whose value is the object.
    const cfl_ref *common = dlsym(handle, "kCFRunLoopCommonModes");
    if (common)
        lib->commonModes = *common;
    else
        note_missing(missing, size, "kCFRunLoopCommonModes");
    lib->typeArrayCallBacks = dlsym(handle, "kCFTypeArrayCallBacks");
    if (missing[0]) {
        size_t length = strlen(path) + strlen(missing) + 128;
        *error = malloc(length);
        snprintf(*error, length, "%s is not a CoreFoundation run-loop library: it lacks %s", path, missing);
        dlclose(handle);
        free(lib);
        return NULL;
    }
    // The name the dynamic linker recorded may be the path as given or a resolved one: look for either.
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) {
        struct build_id_search search = {map->l_name, lib->build_id};
        dl_iterate_phdr(find_build_id, &search);
    }
    return lib;
}

cfl_library *cfl_open_toolchain(char **error) {
    void *symbol = dlsym(RTLD_DEFAULT, "CFRunLoopGetCurrent");
    Dl_info info;
    if (!symbol || !dladdr(symbol, &info) || !info.dli_fname || !info.dli_fname[0]) {
        const char *why = "this process has no CoreFoundation (no CFRunLoopGetCurrent in its global scope)";
        *error = strdup(why);
        return NULL;
    }
    return cfl_open(info.dli_fname, error);
}

void cfl_engine_name(const char *path, char *out, unsigned long size) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (strncmp(base, "lib", 3) == 0 && base[3]) base += 3;
    const char *so = strstr(base, ".so");
    size_t length = so ? (size_t)(so - base) : strlen(base);
    snprintf(out, size, "cf:%.*s", (int)length, base);
}

// MARK: Blocks of the suite's own making

/// BLOCK_IS_GLOBAL of the Blocks ABI (https://clang.llvm.org/docs/Block-ABI-Apple.html, "flags").
enum { CFL_BLOCK_IS_GLOBAL = 1 << 28 };

struct cfl_block_descriptor {
    unsigned long reserved;
    unsigned long size;
};

/// A block literal as the Blocks ABI lays it out, with two captured words: the callout and its context.
struct cfl_block {
    const void *isa;
    int flags;
    int reserved;
    void (*invoke)(struct cfl_block *block);
    const struct cfl_block_descriptor *descriptor;
    void (*callout)(void *context);
    void *context;
};

static const struct cfl_block_descriptor block_descriptor = {0, sizeof(struct cfl_block)};

/// The isa of a global block: the process's _NSConcreteGlobalBlock when a blocks runtime is in its global scope (a
/// runtime that decides by isa, as GNUstep's libobjc2 does, then sees a global block too), otherwise a word of our
/// own, which no runtime takes for its stack or heap block class either.
static const void *global_block_isa(void) {
    static const void *own_class[4];
    const void *runtime = dlsym(RTLD_DEFAULT, "_NSConcreteGlobalBlock");
    return runtime ? runtime : own_class;
}

static void invoke_block(struct cfl_block *block) {
    void (*callout)(void *) = block->callout;
    void *context = block->context;
    block->callout = NULL;  // at most once
    if (callout) callout(context);
}

void cfl_perform_block(const cfl_library *library, cfl_ref loop, cfl_ref modes, void (*callout)(void *context),
                       void *context) {
    struct cfl_block *block = calloc(1, sizeof *block);
    block->isa = global_block_isa();
    block->flags = CFL_BLOCK_IS_GLOBAL;
    block->invoke = invoke_block;
    block->descriptor = &block_descriptor;
    block->callout = callout;
    block->context = context;
    library->CFRunLoopPerformBlock(loop, modes, block);
}
