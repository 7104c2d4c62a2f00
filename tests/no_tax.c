// A preload library that changes nothing measured: the control side when
// another side preloads libslow_malloc.so. Loading any library moves what
// the dynamic loader keeps on the heap, so the two sides differ only in
// what the tax does (docs/counts.md).
__attribute__((visibility("default"))) int icount_test_no_tax(int x) { return x; }
