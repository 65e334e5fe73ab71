package io.wheeltimer.jdbc;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What differs between databases: the four statements that plain SQL cannot write the same way
 * everywhere (the timeout upsert, the lease upsert, the delete that returns the version it removed,
 * and the claim). One subclass per database; {@link TimeoutTable} runs everything else. Adding a
 * database is one subclass here, one case in {@link #of} and one schema script beside the others.
 *
 * <p>Every statement runs through the {@link JdbcTemplate}, so it joins the transaction of the
 * calling thread.
 */
abstract class Dialect {

    final JdbcTemplate jdbc;
    final String table;
    final String instances;

    Dialect(JdbcTemplate jdbc, String table) {
        this.jdbc = jdbc;
        this.table = table;
        this.instances = TimeoutTable.instancesTable(table);
    }

    /** The dialect of the database whose JDBC driver reports {@code productName}, if it is supported. */
    static Optional<Dialect> of(String productName, JdbcTemplate jdbc, String table) {
        return switch (productName) {
            case "H2" -> Optional.of(new H2Dialect(jdbc, table));
            case "PostgreSQL" -> Optional.of(new PostgresDialect(jdbc, table));
            default -> Optional.empty();
        };
    }

    /** The databases {@link #of} knows, for error messages. */
    static final String SUPPORTED = "H2 and PostgreSQL";

    /**
     * Inserts the row of (task, key), or replaces the pending or given-up one: pending again, with
     * no attempts and no error.
     */
    abstract void upsertTimeout(String task, String key, long deadline, String holder, long version);

    /** Deletes the pending row of (task, key); its version, or empty when none was pending. */
    abstract Optional<Long> deletePending(String task, String key);

    /** Writes the lease of {@code instance} to run until {@code leaseUntil}, inserting its row the first time. */
    abstract void upsertLease(String instance, long leaseUntil);

    /**
     * Takes for {@code instance} at most {@code limit} pending timeouts of {@code tasks} due before
     * {@code dueBefore} and held by no instance whose lease runs past {@code now}, skipping rows that
     * another transaction has locked (a concurrent claim, or a firing): two instances never both take
     * a row. Returns the rows taken.
     */
    abstract List<TimeoutTable.Row> claim(String instance, long dueBefore, long now, List<String> tasks, int limit);

    /**
     * The condition of a claimable row of alias {@code a}: pending, due within the lookahead, of one of
     * {@code taskCount} tasks, held by no live instance. Parameters: due before, lease alive at, the tasks.
     */
    final String claimable(String a, int taskCount) {
        return a + ".failed_at IS NULL AND " + a + ".deadline <= ? AND (" + a + ".holder IS NULL OR NOT EXISTS"
                + " (SELECT 1 FROM " + instances + " i WHERE i.instance_id = " + a + ".holder"
                + " AND i.lease_until > ?)) AND " + a + ".task IN ("
                + String.join(", ", Collections.nCopies(taskCount, "?")) + ")";
    }

    /** The parameters of {@link #claimable}, then {@code more}. */
    static Object[] claimArguments(long dueBefore, long now, List<String> tasks, Object... more) {
        List<Object> args = new ArrayList<>(tasks.size() + 2 + more.length);
        args.add(dueBefore);
        args.add(now);
        args.addAll(tasks);
        Collections.addAll(args, more);
        return args.toArray();
    }
}
