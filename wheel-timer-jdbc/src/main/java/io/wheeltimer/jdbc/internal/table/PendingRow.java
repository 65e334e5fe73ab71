package io.wheeltimer.jdbc.internal.table;

/**
 * A pending row as this instance reads or claims it: {@code deadline} as scheduled, {@code dueAt} when
 * it runs next (epoch milliseconds), the version of its last write, its failed runs and its holder
 * (null when nobody holds it).
 */
public record PendingRow(
        String task, String key, long deadline, long dueAt, long version, int attempts, String holder) {}
