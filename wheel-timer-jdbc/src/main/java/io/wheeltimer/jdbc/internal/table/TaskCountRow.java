package io.wheeltimer.jdbc.internal.table;

/** A task's pending and given-up rows, each counted up to a limit. */
public record TaskCountRow(String task, long pending, long failed) {}
