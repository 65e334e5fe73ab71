package io.wheeltimer.jdbc.internal.table;

/**
 * A lease row: its end (epoch milliseconds), whether the instance's life lock is held (null where the
 * database has none), and how many rows the instance holds.
 */
public record InstanceRow(String instanceId, long leaseUntil, Boolean lifeLockHeld, long held) {}
