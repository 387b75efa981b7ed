public enum CompareKitPlaceholder {}
