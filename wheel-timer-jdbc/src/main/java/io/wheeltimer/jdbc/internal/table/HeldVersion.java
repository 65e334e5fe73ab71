package io.wheeltimer.jdbc.internal.table;

/** A row as a holder holds it: (task, key) at the version it armed. */
public record HeldVersion(String task, String key, long version) {}
