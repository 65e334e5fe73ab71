package io.wheeltimer.jdbc.internal.table;

/** What is stored with a timeout, read back when its run starts: its data and trace context, each null when none. */
public record StoredData(String data, String traceContext) {}
