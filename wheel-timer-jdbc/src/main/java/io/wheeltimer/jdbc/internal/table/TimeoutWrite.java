package io.wheeltimer.jdbc.internal.table;

/** A row to write: a timeout scheduled, whole (data and trace context null when none). */
public record TimeoutWrite(
        String task, String key, long deadline, String holder, long version, String data, String traceContext) {}
