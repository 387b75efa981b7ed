// The reference run loop is being written; this placeholder keeps the package building.
public enum RefRunLoopPlaceholder {}
