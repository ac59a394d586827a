/**
 * A value built on first use, once. For the Unicode patterns of modules a bundle loads whole: building one costs up to
 * a quarter of a millisecond (V8 parses it, Unicode property classes and case folding included), which loading the
 * bundle need not pay for a pattern its first use never reads.
 */
export function lazy<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
