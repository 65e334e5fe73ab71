package io.wheeltimer.jdbc.internal.table;

/** How many pending rows of {@code task} are due in minute {@code minute} (0 is the first) of a window. */
public record DueMinuteRow(String task, int minute, long count) {}
