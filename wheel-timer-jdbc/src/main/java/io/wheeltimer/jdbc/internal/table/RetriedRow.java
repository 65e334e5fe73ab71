package io.wheeltimer.jdbc.internal.table;

/** A given-up row made pending again: the version written and its scheduled deadline. */
public record RetriedRow(long version, long deadline) {}
