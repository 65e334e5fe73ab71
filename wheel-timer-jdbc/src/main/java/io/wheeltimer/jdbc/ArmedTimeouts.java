package io.wheeltimer.jdbc;

import io.wheeltimer.Timeout;
import io.wheeltimer.Timer;
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
    /** Entries the wheel refused to arm; each poll tries them again. */
    private final Set<Entry> waitingForTheWheel = ConcurrentHashMap.newKeySet();

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
        this.pollInterval = TimerSettings.format(settings.pollInterval());
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
        waitingForTheWheel.clear();
        entries.values().forEach(this::forget);
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
     * replacing (and disarming) the current entry for its id. Does nothing unless holding.
     */
    void arm(DurableTimeout timeout, long version, int attempts, long dueAtMillis) {
        if (!isHolding()) {
            return;
        }
        Entry entry = new Entry(new Id(timeout.task(), timeout.key()), timeout, version, attempts, dueAtMillis);
        Entry previous = entries.put(entry.id, entry);
        if (previous != null) {
            previous.disarm();
        }
        if (!isHolding()) {
            forget(entry); // a stop ran meanwhile and may have missed it
            return;
        }
        armOnWheel(entry);
    }

    /** Arms {@code entry} again, the same version, at {@code dueAtMillis}, if it is still current. */
    void armAgain(Entry entry, long dueAtMillis) {
        if (isCurrent(entry)) {
            arm(entry.timeout, entry.version, entry.attempts, dueAtMillis);
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

    /** Removes and disarms the current entry of (task, key) if it is that {@code version}. */
    void forget(String task, String key, long version) {
        Entry entry = current(task, key);
        if (entry != null && entry.version == version) {
            forget(entry);
        }
    }

    /** On the poll thread: arms again what the wheel refused, if it is still current. */
    void armWhatTheWheelRefused() {
        List<Entry> refused = new ArrayList<>(waitingForTheWheel);
        waitingForTheWheel.removeAll(refused);
        for (Entry entry : refused) {
            if (isHolding() && isCurrent(entry)) {
                armOnWheel(entry);
            }
        }
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
     * A wheel that refuses (at its maximum of pending timeouts, or stopping) leaves the entry held
     * and waiting: every poll tries again, so the timeout fires late rather than never.
     */
    private void armOnWheel(Entry entry) {
        long delayMillis = Math.max(0, entry.dueAtMillis - clock.millis());
        try {
            entry.wheel = wheel.newTimeout(w -> onDue.accept(entry), delayMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            waitingForTheWheel.add(entry);
            refusals.report(
                    () -> "Durable timer " + instanceId + " could not arm the timeout of task \"" + entry.id.task()
                            + "\" for key \"" + entry.id.key() + "\" on its wheel; it keeps holding it and tries"
                            + " again at every poll, every " + pollInterval,
                    e);
            return;
        }
        if (!isCurrent(entry)) {
            entry.disarm(); // replaced while being armed: whoever replaced it may have missed the handle
        }
    }
}
