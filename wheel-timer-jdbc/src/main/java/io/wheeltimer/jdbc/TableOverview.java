package io.wheeltimer.jdbc;

import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import io.wheeltimer.jdbc.internal.table.WholeRow;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a page that shows the table reads, each call one statement whose cost does not grow with the
 * table (the statements are the table's own, behind its one door): counts stop at a limit, the tasks are found by a loose scan of the primary key, upcoming
 * deadlines are read over an index range of each task, and pages are read by keyset (after or
 * before a position), never by an offset. Reads only: it changes nothing and holds no lock. Each
 * statement joins the transaction of the calling thread, if any.
 *
 * <p>Obtained from {@link JdbcDurableTimer#overview()}; thread safe.
 */
public final class TableOverview {

    /**
     * Pending and given-up timeouts of one task, each counted up to the limit asked for: a count
     * equal to that limit means at least that many.
     */
    public record TaskCounts(String task, long pending, long failed) {}

    /** How many pending timeouts of {@code task} are due in minute {@code minute} (0 is the first) of a window. */
    public record DueInMinute(String task, int minute, long count) {}

    /**
     * An instance with a lease row: when its lease ends (epoch milliseconds, by the clock that wrote
     * it: the database's when it judges), whether its life lock is held ({@code null} where the
     * database has none, as H2), and how many timeouts it holds.
     */
    public record Instance(String instanceId, Instant leaseUntil, Boolean lifeLockHeld, long held) {}

    /**
     * A row as an operator sees it: the timeout (its {@code attempt} the run that comes next while
     * pending, the last run once given up), when it runs next ({@code null} once given up), the
     * instance that holds it ({@code null}: none), and for a given-up one when and why.
     */
    public record Stored(DurableTimeout timeout, Instant dueAt, String holder, Instant failedAt, String lastError) {

        /** Whether it is pending (else it was given up). */
        public boolean isPending() {
            return failedAt == null;
        }

        /** Where a page that continues after (or before) this row starts. */
        public Position position() {
            return new Position(isPending() ? dueAt : failedAt, timeout.key());
        }
    }

    /**
     * A place in a page's order: a pending page's due time or a given-up page's failure time, and
     * the key that breaks ties.
     */
    public record Position(Instant at, String key) {
        public Position {
            Objects.requireNonNull(at, "at must not be null");
            Objects.requireNonNull(key, "key must not be null");
        }
    }

    private final TimeoutTable table;
    private final Clock clock;

    TableOverview(TimeoutTable table, Clock clock) {
        this.table = table;
        this.clock = clock;
    }

    /** The time by the clock that judges deadlines (the database's, when it judges). */
    public Instant now() {
        return clock.instant();
    }

    /** The table the timeouts are kept in. */
    public String tableName() {
        return table.name();
    }

    /**
     * The tasks that have rows in the table, in name order, at most {@code taskLimit}, each with its
     * pending and given-up timeouts counted up to {@code countLimit}. One statement.
     *
     * @param countLimit 1 to 1,000,000
     * @param taskLimit 1 to 1000
     * @throws IllegalArgumentException if a limit is out of range
     */
    public List<TaskCounts> taskCounts(int countLimit, int taskLimit) {
        checkRange("countLimit", countLimit, 1_000_000);
        checkRange("taskLimit", taskLimit, 1000);
        return table.taskCounts(countLimit, taskLimit).stream()
                .map(row -> new TaskCounts(row.task(), row.pending(), row.failed()))
                .toList();
    }

    /**
     * How many pending timeouts of each of {@code tasks} are due in each of the {@code minutes}
     * minutes from {@code from} on (a minute with none is left out). One statement, reading the
     * index range of each task over the window; none with no tasks.
     *
     * @param minutes 1 to 1440
     * @throws IllegalArgumentException if {@code minutes} is out of range, or there are more than 1000 tasks
     */
    public List<DueInMinute> dueByMinute(Collection<String> tasks, Instant from, int minutes) {
        checkRange("minutes", minutes, 1440);
        Objects.requireNonNull(from, "from must not be null");
        if (tasks.isEmpty()) {
            return List.of();
        }
        checkRange("the number of tasks", tasks.size(), 1000);
        return table.dueByMinute(tasks, from.toEpochMilli(), minutes).stream()
                .map(row -> new DueInMinute(row.task(), row.minute(), row.count()))
                .toList();
    }

    /**
     * The instances with a lease row, in id order, at most {@code limit}, each with its lease end,
     * its life lock and how many timeouts it holds. One statement.
     *
     * @param limit 1 to 1000
     * @throws IllegalArgumentException if {@code limit} is out of range
     */
    public List<Instance> instances(int limit) {
        checkRange("limit", limit, 1000);
        return table.instances(limit).stream()
                .map(row -> new Instance(
                        row.instanceId(), Instant.ofEpochMilli(row.leaseUntil()), row.lifeLockHeld(), row.held()))
                .toList();
    }

    /** The timeout of {@code task} for {@code key}, pending or given up, if any. One statement. */
    public Optional<Stored> lookup(String task, String key) {
        Names.checkTaskAndKey(task, key);
        return table.lookup(task, key).map(TableOverview::stored);
    }

    /**
     * A page of the pending timeouts of {@code task}, soonest due first (then by key): the first
     * {@code limit} after {@code after}, or from the start when it is {@code null}.
     *
     * @param limit 1 to 1000
     */
    public List<Stored> pendingAfter(String task, Position after, int limit) {
        return page(true, false, task, after, limit);
    }

    /** As {@link #pendingAfter}, the {@code limit} rows just before {@code before}, in the same order. */
    public List<Stored> pendingBefore(String task, Position before, int limit) {
        Objects.requireNonNull(before, "before must not be null");
        return page(true, true, task, before, limit);
    }

    /**
     * A page of the given-up timeouts of {@code task}, latest failure first (then by key): the first
     * {@code limit} after {@code after}, or from the start when it is {@code null}.
     *
     * @param limit 1 to 1000
     */
    public List<Stored> failedAfter(String task, Position after, int limit) {
        return page(false, false, task, after, limit);
    }

    /** As {@link #failedAfter}, the {@code limit} rows just before {@code before}, in the same order. */
    public List<Stored> failedBefore(String task, Position before, int limit) {
        Objects.requireNonNull(before, "before must not be null");
        return page(false, true, task, before, limit);
    }

    private List<Stored> page(boolean pending, boolean backward, String task, Position from, int limit) {
        Names.name("task", task);
        checkRange("limit", limit, 1000);
        long atMillis = from == null ? 0 : from.at().toEpochMilli();
        String key = from == null ? null : from.key();
        return table.page(pending, backward, task, atMillis, key, limit).stream()
                .map(TableOverview::stored)
                .toList();
    }

    private static Stored stored(WholeRow row) {
        return new Stored(
                row.timeout(),
                row.dueAt() == null ? null : Instant.ofEpochMilli(row.dueAt()),
                row.holder(),
                row.failedAt() == null ? null : Instant.ofEpochMilli(row.failedAt()),
                row.lastError());
    }

    private static void checkRange(String name, int value, int max) {
        if (value < 1 || value > max) {
            throw new IllegalArgumentException(name + " must be 1 to " + max + ", was " + value);
        }
    }
}
