import Testing
@Test func refPlaceholder() {}
