package io.wheeltimer.jdbc;

import java.util.List;

/**
 * The durable timeouts' table cannot be used: it does not exist, lacks columns that this version
 * reads and writes (made by an earlier version), or is another table of that name. Thrown by
 * {@link JdbcDurableTimer#start()}, so that an application fails at startup rather than at every
 * {@code schedule} later; the message names the table, what is missing and the fix.
 */
public final class DurableTableException extends IllegalStateException {

    private final String table;
    private final List<String> missingColumns;
    private final String fix;

    DurableTableException(String table, List<String> missingColumns, String problem, String fix, Throwable cause) {
        super("Durable timeouts: table " + table + " " + problem + ". " + fix, cause);
        this.table = table;
        this.missingColumns = List.copyOf(missingColumns);
        this.fix = fix;
    }

    /** The table that cannot be used. */
    public String table() {
        return table;
    }

    /** The columns it lacks; empty when the table does not exist at all. */
    public List<String> missingColumns() {
        return missingColumns;
    }

    /** What to do about it, as a sentence. */
    public String fix() {
        return fix;
    }
}
