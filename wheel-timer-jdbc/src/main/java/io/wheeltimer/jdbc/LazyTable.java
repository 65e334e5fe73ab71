package io.wheeltimer.jdbc;

import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The table of one timer, opened at its first use (asking the driver which database it is takes a
 * connection, so building a timer takes none), then the same one for every part. Thread safe.
 */
final class LazyTable {

    private final JdbcTemplate calls;
    private final JdbcTemplate bounded;
    private final TimerSettings settings;
    private final Set<String> tasks;
    private final Object lock = new Object();
    private volatile TimeoutTable table;

    /**
     * @param tasks the tasks this instance claims
     */
    LazyTable(DataSource dataSource, TimerSettings settings, Set<String> tasks) {
        this.calls = new JdbcTemplate(dataSource);
        this.bounded = new JdbcTemplate(dataSource);
        bounded.setQueryTimeout((int) settings.statementTimeout().toSeconds());
        this.settings = settings;
        this.tasks = Set.copyOf(tasks);
    }

    /** The table's statements, in the dialect of the database, found at the first use. */
    TimeoutTable get() {
        TimeoutTable t = table;
        if (t == null) {
            synchronized (lock) {
                if (table == null) {
                    table = TimeoutTable.open(calls, bounded, settings.tableName(), tasks, settings.clock());
                }
                t = table;
            }
        }
        return t;
    }
}
