import Testing
@Test func comparePlaceholder() {}
