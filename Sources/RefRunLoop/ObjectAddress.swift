// An object's address as a word: how a binding word names a loop or a mode (SourceBinding.swift, LoopBinding.swift),
// and how a loop recognises its own mode in one, without holding a reference.

/// The address of `object` as a word (never 0). Holds no reference: the caller keeps the object alive, or compares the
/// word only with addresses of objects it knows are alive.
@inline(__always)
func wordAddress<T: AnyObject>(of object: T) -> UInt { UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()) }
