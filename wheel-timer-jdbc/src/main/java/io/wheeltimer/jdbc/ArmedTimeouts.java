package io.wheeltimer.jdbc;

import io.wheeltimer.Timeout;
import io.wheeltimer.Timer;
import io.wheeltimer.TimerTask;
import io.wheeltimer.internal.RepeatLog;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The timeouts this instance holds, each armed on the wheel: a cache of the rows whose holder is
 * this instance, so that each one fires within a tick of its deadline without a poll.
 *
 * <p><b>The invariant.</b> An {@link Entry} is one version of one row. The map keeps at most one
 * entry per (task, key), the current one. An entry acts (is dispatched from the wheel, fired,
 * retried, armed again) only while it is still the current entry for its id: every such step asks
 * {@link #isCurrent} first, and a step that finds its entry replaced or removed does nothing, since
 * whoever replaced it owns the id now. Replacing or removing an entry disarms it; an entry replaced
 * while it was being armed disarms itself once armed, so no stale handle is left on the wheel.
 *
 * <p><b>The newest wins.</b> A row's versions grow in the order its writes commit, so an entry is
 * never replaced by one of an older version, whatever order the after-commit hooks, claims and
 * retries arm them in.
 *
 * <p><b>Refusals.</b> A timeout that the wheel or the executor refuses is not kept under this
 * instance's lease: the next poll releases its row for any instance to claim
 * ({@link #takeRefused}).
 *
 * <p><b>Holding.</b> Entries are armed only while this instance holds timeouts: from the first
 * poll that wrote its lease ({@link #hold}) until {@link #stop}. {@code stop} then disarms them all;
 * an entry put concurrently with it sees the stop right after its put and removes itself, so none
 * survives a stop whichever runs first.
 *
 * <p>Thread safe: the map is written from callers' after-commit hooks, the poll thread, the wheel's
 * thread and the executor.
 */
final class ArmedTimeouts {

    private static final int WAITING_FOR_LEASE = 0;
    private static final int HOLDING = 1;
    private static final int STOPPED = 2;

    /** Who a timeout is: one row of the table. */
    record Id(String task, String key) {}

    /** A timeout armed on the wheel: one version of one row. */
    static final class Entry {
        final Id id;
        final DurableTimeout timeout;
        final long version;
        /** Runs of this row that threw before this one. */
        final int attempts;
        /** When it is to fire, in epoch milliseconds: its deadline, or when a failed run is retried. */
        final long dueAtMillis;

        private volatile Timeout wheel;

        Entry(Id id, DurableTimeout timeout, long version, int attempts, long dueAtMillis) {
            this.id = id;
            this.timeout = timeout;
            this.version = version;
            this.attempts = attempts;
            this.dueAtMillis = dueAtMillis;
        }

        private void disarm() {
            Timeout w = wheel;
            if (w != null) {
                w.cancel();
            }
        }
    }

    private final ConcurrentMap<Id, Entry> entries = new ConcurrentHashMap<>();
    /** Entries the wheel or the executor refused; the next poll releases their rows. */
    private final Set<Entry> refused = ConcurrentHashMap.newKeySet();

    private final AtomicInteger state = new AtomicInteger(STOPPED);

    private final Timer wheel;
    private final Clock clock;
    private final Consumer<Entry> onDue;
    private final RepeatLog refusals;
    private final String instanceId;
    private final String pollInterval;

    /**
     * @param onDue runs on the wheel's thread when an entry is due: hands it to the firing
     */
    ArmedTimeouts(Timer wheel, Clock clock, Consumer<Entry> onDue, RepeatLog refusals, TimerSettings settings) {
        this.wheel = wheel;
        this.clock = clock;
        this.onDue = onDue;
        this.refusals = refusals;
        this.instanceId = settings.instanceId();
        this.pollInterval = Durations.format(settings.pollInterval());
    }

    /** At start: nothing is armed until the first lease is written. */
    void waitForLease() {
        state.set(WAITING_FOR_LEASE);
    }

    /** Once this instance's lease is written: from now on what it schedules or claims is armed. Not after a stop. */
    void hold() {
        state.compareAndSet(WAITING_FOR_LEASE, HOLDING);
    }

    /** Whether rows scheduled here now are written as held by this instance and armed. */
    boolean isHolding() {
        return state.get() == HOLDING;
    }

    /** Disarms everything, and arms nothing more until the next start. */
    void stop() {
        state.set(STOPPED);
        refused.clear();
        entries.values().forEach(this::forget);
    }

    /**
     * Forgets (and disarms) every entry but those {@code keep} keeps (their runs are under way): for a
     * poll that rebuilds what this instance holds from the table.
     */
    void forgetAllBut(Predicate<Entry> keep) {
        refused.clear();
        for (Entry entry : entries.values()) {
            if (!keep.test(entry)) {
                forget(entry);
            }
        }
    }

    /** Whether {@code entry} is still the current entry for its id: the one question before it acts. */
    boolean isCurrent(Entry entry) {
        return entries.get(entry.id) == entry;
    }

    /** The current entry for the row of (task, key), if any. */
    Entry current(String task, String key) {
        return entries.get(new Id(task, key));
    }

    /**
     * Arms {@code timeout} at {@code version} to fire at {@code dueAtMillis} (epoch milliseconds),
     * replacing (and disarming) the current entry for its id unless that one is of a newer version.
     * Does nothing unless holding. Whether it was armed.
     */
    boolean arm(DurableTimeout timeout, long version, int attempts, long dueAtMillis) {
        if (!isHolding()) {
            return false;
        }
        Entry entry = new Entry(new Id(timeout.task(), timeout.key()), timeout, version, attempts, dueAtMillis);
        Entry[] replaced = new Entry[1];
        Entry kept = entries.compute(entry.id, (id, current) -> {
            if (current != null && current.version > version) {
                return current; // a newer schedule of this row was armed first
            }
            replaced[0] = current;
            return entry;
        });
        if (kept != entry) {
            return false;
        }
        if (replaced[0] != null) {
            replaced[0].disarm();
        }
        if (!isHolding()) {
            forget(entry); // a stop ran meanwhile and may have missed it
            return false;
        }
        armOnWheel(entry);
        return true;
    }

    /** Arms {@code entry} again, the same version, at {@code dueAtMillis}, if it is still current. */
    void armAgain(Entry entry, int attempts, long dueAtMillis) {
        if (isCurrent(entry)) {
            arm(entry.timeout, entry.version, attempts, dueAtMillis);
        }
    }

    /** Removes {@code entry} and disarms it, if it is still current; whether it was. */
    boolean forget(Entry entry) {
        if (entries.remove(entry.id, entry)) {
            entry.disarm();
            return true;
        }
        return false;
    }

    /**
     * Removes and disarms the current entry of (task, key) if its version is {@code version} or
     * older: that version was cancelled, or moved beyond the lookahead, and its row is not held here.
     */
    void forget(String task, String key, long version) {
        Entry entry = current(task, key);
        if (entry != null && entry.version <= version) {
            forget(entry);
        }
    }

    /**
     * Takes a timeout the executor refused: it stays current, so that nothing else runs it, until
     * the next poll releases its row.
     */
    void refused(Entry entry) {
        if (isCurrent(entry)) {
            refused.add(entry);
        }
    }

    /**
     * On the poll thread: the timeouts the wheel or the executor refused since the last poll, still
     * current; each is forgotten here, for the poll to release its row.
     */
    List<Entry> takeRefused() {
        List<Entry> taken = new ArrayList<>();
        for (Entry entry : List.copyOf(refused)) {
            refused.remove(entry);
            if (forget(entry)) {
                taken.add(entry);
            }
        }
        return taken;
    }

    /** How many refused timeouts wait for the next poll to release them. */
    int refusedCount() {
        return refused.size();
    }

    /** The timeouts held now. */
    int size() {
        return entries.size();
    }

    /** The timeouts held now, each as {@code task/key}; for tests. */
    Set<String> keys() {
        return entries.keySet().stream().map(id -> id.task() + "/" + id.key()).collect(Collectors.toSet());
    }

    /**
     * A wheel that refuses (at its maximum of pending timeouts, or stopping) leaves the entry for the
     * next poll to release, so that an instance with room runs it.
     */
    private void armOnWheel(Entry entry) {
        long nowMillis = clock.millis();
        long delayMillis = entry.dueAtMillis <= nowMillis ? 0 : entry.dueAtMillis - nowMillis;
        try {
            entry.wheel = wheel.newTimeout(new Due(entry), delayMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            refused.add(entry);
            refusals.report(
                    () -> "Durable timer " + instanceId + " could not arm the timeout of task \"" + entry.id.task()
                            + "\" for key \"" + entry.id.key() + "\" on its wheel; its next poll, within "
                            + pollInterval + ", releases it for an instance with room",
                    e);
            return;
        }
        if (!isCurrent(entry)) {
            entry.disarm(); // replaced while being armed: whoever replaced it may have missed the handle
        }
    }

    /** The wheel's task of an entry, named for it in the wheel's upcoming list and logs. */
    private final class Due implements TimerTask {
        private final Entry entry;

        Due(Entry entry) {
            this.entry = entry;
        }

        @Override
        public void run(Timeout timeout) {
            onDue.accept(entry);
        }

        @Override
        public String toString() {
            return "durable timeout of task \"" + entry.id.task() + "\" for key \"" + entry.id.key() + "\"";
        }
    }
}
