package io.wheeltimer.jdbc.internal.table;

import java.util.List;

/**
 * Why a table cannot be used: it does not exist, lacks columns this version reads and writes, or is
 * another table of that name. {@code missing} is empty when the table does not exist; {@code problem}
 * and {@code fix} are sentences for the error; {@code cause} is the database's error, if any.
 */
public record ShapeProblem(String table, List<String> missing, String problem, String fix, Throwable cause) {}
