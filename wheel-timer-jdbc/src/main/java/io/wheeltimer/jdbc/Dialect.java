package io.wheeltimer.jdbc;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What differs between databases: the four statements that plain SQL cannot write the same way
 * everywhere (the timeout upsert that returns its version, the lease upsert, the delete that returns
 * the version it removed, and the claim). One subclass per database; {@link TimeoutTable} runs
 * everything else. Adding a database is one subclass here, one case in {@link #of} and its schema
 * and upgrade scripts beside the others.
 *
 * <p>Two templates: {@link #calls} for what an application calls ({@code schedule}, {@code cancel}:
 * they wait for a row lock as long as the caller's transaction allows), and {@link #bounded} for
 * the timer's own statements, each with a query timeout so that no poll or stop hangs. Both join
 * the transaction of the calling thread.
 */
abstract class Dialect {

    /** The databases {@link #of} knows, for error messages. */
    static final String SUPPORTED = "H2, PostgreSQL, MariaDB and MySQL";

    final JdbcTemplate calls;
    final JdbcTemplate bounded;
    final String table;
    final String instances;

    Dialect(JdbcTemplate calls, JdbcTemplate bounded, String table) {
        this.calls = calls;
        this.bounded = bounded;
        this.table = table;
        this.instances = TimeoutTable.instancesTable(table);
    }

    /**
     * The dialect of the database whose JDBC driver reports {@code productName}, if it is supported.
     * MariaDB Connector/J names MariaDB "MariaDB"; MySQL Connector/J names it "MySQL", and that takes
     * the MySQL dialect, which runs on MariaDB as well.
     */
    static Optional<Dialect> of(String productName, JdbcTemplate calls, JdbcTemplate bounded, String table) {
        return switch (productName) {
            case "H2" -> Optional.of(new H2Dialect(calls, bounded, table));
            case "PostgreSQL" -> Optional.of(new PostgresDialect(calls, bounded, table));
            case "MariaDB" -> Optional.of(new MariaDbDialect(calls, bounded, table));
            case "MySQL" -> Optional.of(new MySqlDialect(calls, bounded, table));
            default -> Optional.empty();
        };
    }

    /** The name of its scripts: {@code schema-NAME.sql} and {@code upgrade-NAME.sql}. */
    abstract String scripts();

    /**
     * Inserts the row of (task, key), or replaces the pending or given-up one whole: pending again,
     * no attempts, no error. Its version becomes {@code version}, or one more than the row's, if that
     * is larger: a row's versions only grow, in the order its writes commit. Returns the version
     * written.
     */
    abstract long upsertTimeout(String task, String key, long deadline, String holder, long version);

    /** Deletes the pending row of (task, key); its version, or empty when none was pending. */
    abstract Optional<Long> deletePending(String task, String key);

    /**
     * Lets go of every row {@code instance} holds, but those a run has locked (a handler still
     * running): the release never waits for a handler; a row it skips is deleted by its run's
     * commit, or, if that run fails, taken over when the lease runs out.
     */
    abstract int releaseAll(String instance);

    /** Writes the lease of {@code instance} to run until {@code leaseUntil}, inserting its row the first time. */
    abstract void upsertLease(String instance, long leaseUntil);

    /**
     * Writes the lease of {@code instance} to run until the database's time plus {@code leaseMillis},
     * inserting its row the first time, and returns the database's time (epoch milliseconds): one
     * statement that renews the lease and reads the clock that judges it. Where the database has a
     * {@link LifeLock} and the claim does not ask for it ({@link #holderAlive}), the same statement ends
     * the lease of every other instance whose lock is free: it is dead.
     */
    abstract long renewLeaseByDatabaseTime(String instance, long leaseMillis);

    /**
     * Takes for {@code instance} at most {@code limit} pending timeouts of {@code tasks} due before
     * {@code dueBefore}: those held by no instance whose lease runs past {@code now}, and its own
     * that were due before {@code healBefore} (held here but lost from memory). Skips rows that
     * another transaction has locked (a concurrent claim, or a run): two instances never both take a
     * row, and a row running here is never taken again. Returns the rows taken.
     */
    abstract List<TimeoutTable.Row> claim(
            String instance, long dueBefore, long now, long healBefore, List<String> tasks, int limit);

    /**
     * The statements of this database's {@link LifeLock}; null where it has none (H2, which is one
     * instance: its lease alone counts).
     */
    LifeLock.Statements lifeLock() {
        return null;
    }

    /**
     * Where the claim asks the database whether the holder of a row is alive beyond its live lease:
     * the rest of the condition on instances row {@code i} (starting with {@code AND}), true while that
     * instance's {@link LifeLock} is held; empty where the lease alone counts, or where the lease
     * renewal looks at the locks instead ({@link #renewLeaseByDatabaseTime}).
     */
    String holderAlive(String i) {
        return "";
    }

    /**
     * The condition of a claimable row of alias {@code a}. Parameters, in {@link #claimArguments}'s
     * order: due before, this instance, heal before, lease alive at, the tasks.
     */
    final String claimable(String a, int taskCount) {
        return a + ".due_at <= ? AND " + a + ".failed_at IS NULL AND (" + a + ".holder IS NULL OR (" + a
                + ".holder = ? AND "
                + a + ".due_at <= ?) OR NOT EXISTS (SELECT 1 FROM " + instances + " i WHERE i.instance_id = " + a
                + ".holder AND i.lease_until > ?" + holderAlive("i") + ")) AND " + a + ".task IN ("
                + String.join(", ", Collections.nCopies(taskCount, "?")) + ")";
    }

    /** The parameters of {@link #claimable}, then {@code more}. */
    static Object[] claimArguments(
            long dueBefore, String instance, long healBefore, long now, List<String> tasks, Object... more) {
        List<Object> args = new ArrayList<>(tasks.size() + 4 + more.length);
        args.add(dueBefore);
        args.add(instance);
        args.add(healBefore);
        args.add(now);
        args.addAll(tasks);
        Collections.addAll(args, more);
        return args.toArray();
    }
}
