package io.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The loop that drives a {@link TimerRuntime}: the one thread that owns the {@link TimingWheel}.
 * Each round it reads the time, takes the timeouts handed off through the runtime since the last
 * round (new and cancelled), advances the wheel to the tick it read, has the runtime dispatch what
 * is due, and sleeps until the next tick with work. With nothing pending it sleeps until woken.
 *
 * <p>It talks only to the runtime (hand-off, counters, lifecycle, dispatch) and the wheel; nothing
 * calls back into it but the front's probes for tests and benchmarks ({@link #profile()}).
 * Producers never touch the wheel. They wake the worker only when it would otherwise sleep past
 * a new deadline, or past the next tick while handed-off timeouts wait to be taken (so cancelled
 * ones are released within a tick), which is at most once per round.
 */
final class Worker implements Runnable {

    private final TimerRuntime runtime;
    private final Ticker ticker;
    private final long tickNanos;
    private final long maxTick;
    private final TimingWheel wheel;
    private final AtomicLong wakeUps = new AtomicLong();
    private final Consumer<TimeoutHandle> take = this::take;
    private final Consumer<TimeoutHandle> unlink = this::unlink;
    private final Profile profile = new Profile();
    /** The rest of the batch being fired, for {@link #upcoming}: slots [batchNext, batchEnd). */
    private TimingWheel.Entry[] batchRest;

    private int batchNext;
    private int batchEnd;

    /**
     * With a lateness listener, the worker reads the clock once per this many tasks it runs (a
     * power of two): a clock read per task would cost more than a no-op task.
     */
    static final int LATENESS_CLOCK_EVERY = 16;
    /**
     * Entries moved ahead of time per round at most from the level-1 bucket that cascades next
     * ({@link TimingWheel#precascade}): with 512 buckets that is up to 4 M per block.
     */
    static final int PRECASCADE_BUDGET = 8192;
    /**
     * A round pre-cascades until it has run this long (from its start), in steps of {@link
     * #PRECASCADE_STEP}, but always at least the rate that empties the bucket before its block
     * starts ({@link TimingWheel#precascadeRate}). Bounds the round's time where a count would
     * not: on cold memory an entry can cost microseconds to move. The rate a million entries in one
     * bucket need with 512 buckets is under 2,000 a tick, well within 1 ms.
     */
    static final long PRECASCADE_ROUND_NANOS = 1_000_000;
    /** Entries pre-cascaded between two looks at the clock. */
    static final int PRECASCADE_STEP = 256;
    /**
     * Timeouts (plus one per tick) a round fires before it ends early to look at the hand-offs and
     * queries again and carries on: a round is bounded by this much work, or one tick's, whichever is more.
     */
    static final int ROUND_WORK_LIMIT = 16_384;
    /**
     * The hand-off work a round does on the new timeouts, all stripes together ({@link
     * TimerRuntime#takeNew}), and again on the cancelled ones: handles visited to put a take in push
     * order plus handles put into (or unlinked from) the wheel ({@link TimeoutStack#handOver}). A
     * handle pushed by another thread is a cache miss, and the walk that orders a take follows one
     * link after another: a million scheduled between two rounds are taken over many short rounds.
     */
    static final int TAKE_LIMIT = 2048;
    /**
     * How long before the end of a long sleep the worker wakes at most to read the entries due
     * first ({@link TimingWheel#warm}), over as long a span after it; half the sleep if that is
     * less, and at least one tick: after seconds asleep the first full ticks otherwise run on cold
     * caches and TLB and fall behind. It bounds how early the reads start: too late and they do not
     * finish before the window (a first read can cost microseconds per 4 KiB page), too early and
     * the pages are cold again by the window. 100 ms lets a window of a million entries be read in
     * time on cold memory; the measurements are in docs/benchmarks.md, History.
     */
    static final long WARM_LEAD_NANOS = 100_000_000;
    /** Only a sleep longer than this (and two ticks) ends with an early wake. */
    static final long WARM_MIN_SLEEP_NANOS = 20_000_000;
    /**
     * Entries read ahead at most: a million due in 100 ms are read whole. The reading stops when
     * the sleep would have ended, whether done or not, and is bounded per round (below).
     */
    static final int WARM_BUDGET = 1 << 21;
    /**
     * A round reads ahead for about this long at most, in steps of {@link #WARM_STEP} entries, and
     * the reading goes on over back-to-back rounds, so that hand-offs and queries are served in
     * between and no round is long however cold the memory (a cold entry can cost several µs).
     */
    static final long WARM_ROUND_NANOS = 1_000_000;
    /**
     * Entries read between two looks at the clock while reading ahead: at a few µs an entry when
     * every one is on a cold page, 64 keep a round within a fraction of {@link #WARM_ROUND_NANOS}.
     */
    static final int WARM_STEP = 64;
    /** Tasks loaded ahead of their dispatch ({@link #touchTasks}), a power of two. */
    static final int TOUCH_GROUP = 16;
    /** Queries are answered once per this many fired (power of two). */
    static final int QUERY_CHECK_EVERY = 64;

    private long startTime;
    /** The runtime's scheduled count read in the last round. */
    private long scheduledAtLastRound;
    /** The tick the wheel may advance to: the time read before the take being handed over. */
    private long reach;
    /** {@link #WARM_LEAD_NANOS} in ticks. */
    private final long warmLead;
    /** {@link #WARM_MIN_SLEEP_NANOS} in ticks, at least 2. */
    private final long warmMinSleep;
    /** The ticks from {@link #warmTick} on that the current read-ahead covers. */
    private long warmSpan;
    /** The last tick a sleep was cut short for, so that the rest of that sleep is not cut again. */
    private long lastWarmTick = TimingWheel.NO_TICK;
    /** The tick a long sleep was cut short for: warm it up on the rounds woken early. */
    private long warmTick = TimingWheel.NO_TICK;
    /** Slots read ahead for {@link #warmTick} so far. */
    private int warmed;
    /** Written by {@link #touchTasks} only, and never read, so that its loads are not optimized away. */
    private Class<?> lastTaskClass;

    private long tasksOfLastClass;

    Worker(TimerRuntime runtime, Ticker ticker, long tickNanos, int ticksPerWheel, boolean hierarchical) {
        this.runtime = runtime;
        this.ticker = ticker;
        this.tickNanos = tickNanos;
        this.maxTick = Long.MAX_VALUE / tickNanos;
        this.wheel = new TimingWheel(tickNanos, ticksPerWheel, hierarchical);
        this.warmLead = Math.max(1, (WARM_LEAD_NANOS + tickNanos - 1) / tickNanos);
        this.warmMinSleep = Math.max(2, (WARM_MIN_SLEEP_NANOS + tickNanos - 1) / tickNanos);
    }

    @Override
    public void run() {
        try {
            ticker.wake(Thread.currentThread()); // introduces this worker to the ticker before anyone can schedule
            startTime = ticker.nanoTime();
        } catch (Throwable t) {
            TimerRuntime.LOG.log(
                    System.Logger.Level.ERROR,
                    "The worker of " + runtime + " could not read its ticker; the timer is stopped",
                    t);
            runtime.markStopped();
            runtime.started(0); // lets start() return; it then finds the timer stopped
            return;
        }
        runtime.started(startTime);
        try {
            while (runtime.isActive()) {
                // Read the time before taking the hand-offs: whatever was handed off before the
                // clock reached `now` is then taken in time to fire at its own tick. A take is
                // handed over in bounded portions, over several rounds: until it is all in the
                // wheel nothing fires, and then the wheel advances only to the time read before
                // that take (`reach`); what was scheduled since is taken by the next round.
                // In a grace period the wheel goes no further than its last tick.
                long graceEnd = runtime.graceEndTick();
                long now = Math.min(currentTick(), graceEnd);
                if (!runtime.takingNew()) {
                    reach = now;
                }
                long roundStart = System.nanoTime();
                LongSupplier cpuClock = profile.cpuClock;
                long roundCpuStart = cpuClock == null ? 0 : cpuClock.getAsLong();
                boolean handedOff = runtime.takeNew(take, TAKE_LIMIT) | runtime.takeCancelled(unlink, TAKE_LIMIT);
                answerQueries();
                long phaseEnd = System.nanoTime();
                profile.take += phaseEnd - roundStart;
                boolean taking = runtime.takingNew();
                int work = 0;
                long t = wheel.nextEventTick();
                for (;
                        !taking && t <= reach && runtime.isActive() && work < ROUND_WORK_LIMIT;
                        t = wheel.nextEventTick()) {
                    long phaseStart = phaseEnd;
                    wheel.cascadeTo(t);
                    runtime.publishTick(t);
                    runtime.dueAt(t * tickNanos);
                    long cascaded = System.nanoTime();
                    int due = wheel.takeDue(t);
                    work += due + 1;
                    long taken = System.nanoTime();
                    fire(wheel.batch(), due);
                    phaseEnd = System.nanoTime();
                    profile.cascade += cascaded - phaseStart;
                    profile.expire += taken - cascaded;
                    profile.dispatch += phaseEnd - taken;
                }
                // Behind (a take still being handed over, the work limit cut the round short, or
                // the wheel could only reach an earlier time): go on at once.
                boolean behind = (taking || t <= reach || reach < now) && runtime.isActive();
                // In a grace period: done once nothing more can fire by its last tick. The next
                // event tick may still count a timeout cancelled meanwhile; the pending count does not.
                if (graceEnd != TimingWheel.NO_TICK
                        && !behind
                        && !runtime.hasNewTimeouts()
                        && (wheel.nextEventTick() > graceEnd || runtime.pending() == 0)) {
                    runtime.graceOver();
                }
                if (warmTick != TimingWheel.NO_TICK && warmTick - now > warmSpan) {
                    warmTick = TimingWheel.NO_TICK; // woken before the early wake: armed again below
                }
                if (!behind) {
                    wheel.skipTo(now);
                    if (warmTick != TimingWheel.NO_TICK) {
                        warmAhead(now, phaseEnd + WARM_ROUND_NANOS);
                        long warmEnd = System.nanoTime();
                        profile.expire += warmEnd - phaseEnd; // reading entries before they are due
                        phaseEnd = warmEnd;
                    }
                }
                boolean warming = warmTick != TimingWheel.NO_TICK;
                // Spread the next block's cascade over the rounds before it (bounded work per round).
                boolean precascading = !behind && runtime.isActive() && precascade(roundStart + PRECASCADE_ROUND_NANOS);
                long next = Math.min(wheel.nextEventTick(), wheel.nextPrecascadeTick());
                runtime.publishTick(wheel.currentTick());
                runtime.flushLogs(false);
                long roundEnd = System.nanoTime();
                profile.cascade += roundEnd - phaseEnd;
                profile.endRound(roundEnd - roundStart, cpuClock == null ? 0 : cpuClock.getAsLong() - roundCpuStart);
                // After a hand-off, or with producers busy (anything scheduled since the last round,
                // even if cancelled and taken back at once), more are likely: look again at the next
                // tick rather than at the next deadline, so that cancelled timeouts do not pile up in
                // the stacks and no producer has to wake the worker for them.
                long scheduledSoFar = runtime.scheduled();
                boolean active = handedOff || scheduledSoFar != scheduledAtLastRound;
                scheduledAtLastRound = scheduledSoFar;
                long wakeTick = active || precascading ? Math.min(next, now + 1) : next;
                // Once per sleep: what is left of it after the early wake is not cut short again.
                boolean warmedForIt = wakeTick == lastWarmTick && wakeTick - now <= warmSpan;
                if (!warming && wakeTick <= maxTick && wakeTick - now > warmMinSleep && !warmedForIt) {
                    // A long sleep: wake early to warm up what is due first (see WARM_LEAD_NANOS).
                    warmTick = wakeTick;
                    lastWarmTick = wakeTick;
                    warmed = 0;
                    warmSpan = Math.min(warmLead, (wakeTick - now) / 2);
                    wakeTick -= warmSpan;
                }
                long wake = wakeTick > maxTick ? TimerRuntime.IDLE : wakeTick * tickNanos;
                runtime.dueAt(wake);
                // Repeated failures counted and not yet logged: wake for their summary line in time.
                long flushAt = runtime.nextLogFlush();
                if (flushAt != Long.MAX_VALUE) {
                    wake = Math.min(wake, Math.max(flushAt - startTime, 0));
                }
                runtime.sleepingUntil(wake);
                // Hand-offs made since the take (their producers may have read "awake" and not woken
                // the worker) need another round at once only if the worker would otherwise sleep
                // past the next tick: nothing handed off is due sooner, and a query wakes the worker
                // itself. Going round for every push would keep the worker spinning on the stripes'
                // tops under steady load, pulling the producers' cache lines away from them.
                boolean handOffsNeedARound = wake - tickNanos > now * tickNanos && runtime.hasHandOffs();
                if (behind || warming || handOffsNeedARound || !runtime.isActive()) {
                    runtime.awake();
                    continue;
                }
                Thread.interrupted(); // a task's interrupt must not cut every later sleep short
                if (wake == TimerRuntime.IDLE) {
                    ticker.sleep();
                } else {
                    ticker.sleepUntil(startTime + wake);
                }
                runtime.awake();
                wakeUps.incrementAndGet();
            }
        } catch (Throwable t) {
            TimerRuntime.LOG.log(
                    System.Logger.Level.ERROR,
                    "The worker of " + runtime + " died; its pending timeouts are cancelled",
                    t);
            runtime.markStopped();
        } finally {
            runtime.awake();
            runtime.dueAt(TimerRuntime.IDLE);
            cancelAll();
            runtime.flushLogs(true);
            runtime.graceOver();
        }
    }

    /**
     * Reads ahead for {@link #warmTick} until {@code stopAt} (System.nanoTime), and ends the warming
     * once all is read, {@link #WARM_BUDGET} is, or the tick has come.
     */
    private void warmAhead(long now, long stopAt) {
        int ticks = (int) Math.min(warmSpan, Integer.MAX_VALUE);
        boolean more = warmTick > now;
        while (more) {
            int ask = Math.min(WARM_STEP, WARM_BUDGET - warmed);
            int read = wheel.warm(warmTick, ticks, warmed, ask);
            warmed += read;
            more = read == ask && warmed < WARM_BUDGET;
            if (System.nanoTime() - stopAt >= 0) {
                break;
            }
        }
        if (!more) {
            warmTick = TimingWheel.NO_TICK;
        }
    }

    /**
     * Spreads the next block's cascade over the rounds before it: see {@link #PRECASCADE_ROUND_NANOS}.
     *
     * @return whether entries are left for the next round
     */
    private boolean precascade(long stopAt) {
        int due = wheel.precascadeRate();
        boolean more = due > 0;
        for (int moved = 0; more && moved < PRECASCADE_BUDGET; moved += PRECASCADE_STEP) {
            if (moved >= due && System.nanoTime() - stopAt >= 0) {
                break;
            }
            more = wheel.precascade(PRECASCADE_STEP);
        }
        return more;
    }

    private long currentTick() {
        long elapsed = ticker.nanoTime() - startTime;
        return Math.max(elapsed, 0) / tickNanos;
    }

    private void take(TimeoutHandle handle) {
        // Fails for a handle cancelled (or withdrawn) before the worker saw it: dropped at no cost.
        if (handle.compareAndSetState(TimeoutHandle.PENDING, TimeoutHandle.IN_WHEEL)) {
            wheel.schedule(handle);
        }
    }

    private void unlink(TimeoutHandle handle) {
        wheel.remove(handle); // false if it was expiring when the cancel won: already unlinked
    }

    /**
     * Runs (or hands to the executor) the {@code count} timeouts the wheel took due, emptying their
     * slots. The expired count goes up per timeout, before its task starts (a task or a thread it
     * signals never sees its own timeout pending); the queries and the lateness clock (see {@link
     * LatenessListener}) are looked at once per group of timeouts, so that a tick with thousands due
     * stays cheap.
     */
    private void fire(TimingWheel.Entry[] batch, int count) {
        LatenessListener listener = runtime.latenessListener();
        long clock = 0;
        int fired = 0;
        batchRest = batch;
        batchEnd = count;
        for (int i = 0; i < count; i++) {
            if ((i & (TOUCH_GROUP - 1)) == 0) {
                touchTasks(batch, i, Math.min(i + TOUCH_GROUP, count));
            }
            TimeoutHandle handle = (TimeoutHandle) batch[i];
            batch[i] = null;
            batchNext = i + 1;
            if (runtime.isStopped()) {
                // stop() came while a task of this round ran: the rest of the round never runs.
                runtime.cancelForStop(handle);
                continue;
            }
            // Fails if a cancel won the race; the cancelled stack then finds it already unlinked.
            if (!handle.compareAndSetState(TimeoutHandle.IN_WHEEL, TimeoutHandle.EXPIRED)) {
                continue;
            }
            if (listener != null && (fired & (LATENESS_CLOCK_EVERY - 1)) == 0) {
                clock = ticker.nanoTime() - startTime;
            }
            fired++;
            runtime.dispatch(handle, listener, clock);
            if ((fired & (QUERY_CHECK_EVERY - 1)) == 0) {
                answerQueries(); // between tasks, so a busy tick does not hold a caller for long
            }
        }
        batchRest = null;
        batchEnd = 0;
    }

    /**
     * Loads the task objects of the next group before their handles' compare-and-sets: a task made
     * for its timeout (a lambda capturing its request, say) lies wherever its producer allocated it,
     * and a compare-and-set is a full fence, so loaded one by one between them every task would be a
     * cache miss of its own. Loaded here, with nothing between them, the misses of a group overlap.
     */
    private void touchTasks(TimingWheel.Entry[] batch, int from, int to) {
        int known = 0;
        for (int k = from; k < to; k++) {
            if (((TimeoutHandle) batch[k]).task().getClass() == lastTaskClass) { // reads the task's header
                known++;
            }
        }
        tasksOfLastClass += known; // keeps the loads live
        lastTaskClass = ((TimeoutHandle) batch[from]).task().getClass();
    }

    /** Stops: cancels every timeout that never ran, in the wheel and still in the stacks. */
    private void cancelAll() {
        wheel.clear(entry -> runtime.cancelForStop((TimeoutHandle) entry));
        runtime.drainForStop();
    }

    // --- read by other threads -------------------------------------------------------------

    boolean isHierarchical() {
        return wheel.isHierarchical();
    }

    long wakeUps() {
        return wakeUps.get();
    }

    /** Where the worker's time went, per phase, since it started; read it after stop(). */
    Profile profile() {
        return profile;
    }

    /**
     * Worker-thread time per phase of a round, in nanoseconds (System.nanoTime, whatever the ticker):
     * taking the hand-offs, cascading, taking the due entries out of their bucket, and running or
     * handing off their tasks. Written by the worker only; read after it ended, or as an estimate.
     */
    static final class Profile {
        long take;
        long cascade;
        long expire;
        long dispatch;
        long rounds;
        /** Wall time: includes any time the thread was not running (preempted on a busy machine). */
        long longestRound;
        /** The worker thread's CPU time in its costliest round; only while {@link #cpuClock} is set. */
        long costliestRoundCpu;
        /**
         * For benchmarks: the worker thread's CPU clock (ns; called on the worker), read at the start
         * and end of each round while set. Null (the default) costs one read per round.
         */
        volatile LongSupplier cpuClock;

        void endRound(long nanos, long cpuNanos) {
            rounds++;
            if (nanos > longestRound) {
                longestRound = nanos;
            }
            if (cpuNanos > costliestRoundCpu) {
                costliestRoundCpu = cpuNanos;
            }
        }

        /** For benchmarks, after a warm-up, while the worker sleeps with nothing pending. */
        void reset() {
            take = 0;
            cascade = 0;
            expire = 0;
            dispatch = 0;
            rounds = 0;
            longestRound = 0;
            costliestRoundCpu = 0;
        }
    }

    // --- upcoming --------------------------------------------------------------------------

    /** Answers the queries handed off through the runtime ({@link TimerRuntime#upcoming}). */
    private void answerQueries() {
        List<TimeoutInfo> soonest = null;
        for (TimerRuntime.UpcomingQuery query; (query = runtime.pollQuery()) != null; ) {
            if (soonest == null || soonest.size() < query.limit) {
                soonest = upcoming(Math.max(query.limit, soonest == null ? 0 : soonest.size()));
            }
            query.result.complete(List.copyOf(soonest.subList(0, Math.min(query.limit, soonest.size()))));
        }
    }

    /**
     * Worker thread only: up to {@code limit} pending timeouts, soonest first, from the wheel and
     * from the stack of those not taken yet. O(pending * log limit).
     */
    List<TimeoutInfo> upcoming(int limit) {
        Comparator<TimeoutHandle> byDeadline = Comparator.comparingLong(h -> h.deadline);
        PriorityQueue<TimeoutHandle> latestFirst = new PriorityQueue<>(byDeadline.reversed()); // limit may be huge
        Consumer<TimeoutHandle> offer = handle -> {
            int s = handle.state();
            if (s != TimeoutHandle.PENDING && s != TimeoutHandle.IN_WHEEL) {
                return;
            }
            latestFirst.add(handle);
            if (latestFirst.size() > limit) {
                latestFirst.poll();
            }
        };
        wheel.forEach(entry -> offer.accept((TimeoutHandle) entry));
        for (int i = batchNext; batchRest != null && i < batchEnd; i++) {
            offer.accept((TimeoutHandle) batchRest[i]); // due this tick, not run yet
        }
        runtime.forEachNotTaken(offer);
        List<TimeoutHandle> handles = new ArrayList<>(latestFirst);
        handles.sort(byDeadline);
        long elapsed = ticker.nanoTime() - startTime;
        List<TimeoutInfo> infos = new ArrayList<>(handles.size());
        for (TimeoutHandle handle : handles) {
            long remaining = handle.deadline - elapsed;
            infos.add(new TimeoutInfo(handle.describeTask(), Duration.ofNanos(Math.max(remaining, 0))));
        }
        return infos;
    }
}
