package io.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The loop that drives a {@link TimerRuntime}: the one thread that owns the {@link TimingWheel}.
 * Each round it reads the time, takes the timeouts handed off through the runtime since the last
 * round (new and cancelled), advances the wheel to the tick it read, has the runtime dispatch what
 * is due, and sleeps until the next tick with work. With nothing pending it sleeps until woken.
 *
 * <p>It talks only to the runtime (hand-off, counters, lifecycle, dispatch) and the wheel; nothing
 * calls back into it but the front's probes for tests and benchmarks ({@link #observe}).
 * Producers never touch the wheel. They wake the worker only when it would otherwise sleep past
 * a new deadline, or past the next tick while handed-off timeouts wait to be taken (so cancelled
 * ones are released within a tick), which is at most once per round.
 */
final class Worker implements Runnable, TimingWheel.TickSink {

    /**
     * With a lateness listener, the worker reads the clock once per this many tasks it runs (a
     * power of two): a clock read per task would cost more than a no-op task.
     */
    static final int LATENESS_CLOCK_EVERY = 16;
    /**
     * Timeouts (plus one per tick) a round fires before it ends early to look at the hand-offs and
     * queries again and carries on: a round is bounded by this much work, or one tick's, whichever
     * is more. At the tens of nanoseconds a no-op task costs, that is under a millisecond.
     */
    static final int ROUND_WORK_LIMIT = 16_384;
    /**
     * The hand-off work a round does on the new timeouts, all stripes together ({@link
     * TimerRuntime#takeNew}), and again on the cancelled ones: handles visited to put a take in push
     * order plus handles put into (or unlinked from) the wheel ({@link TimeoutStack#handOver}). A
     * handle pushed by another thread is a cache miss, and the walk that orders a take follows one
     * link after another: a million scheduled between two rounds are taken over many short rounds,
     * each well under a millisecond at about 100 ns a handle.
     */
    static final int TAKE_LIMIT = 2048;
    /**
     * The work a round does ahead of time stops once this long has passed: the read-ahead from its
     * own start, the pre-cascade from the round's start (above the rate it must keep). It bounds a
     * round's time where a count would not: on cold memory an entry can cost microseconds. The
     * ~2,000 entries a tick a million in one level-1 bucket need (512 buckets) fit well within 1 ms.
     */
    static final long AHEAD_OF_TIME_NANOS = 1_000_000;
    /**
     * Queries are answered once per this many fired (a power of two), so that a busy tick holds no
     * caller long, and polling for them costs nothing next to the tasks run in between.
     */
    static final int QUERY_CHECK_EVERY = 64;

    private final TimerRuntime runtime;
    private final Ticker ticker;
    private final long tickNanos;
    private final long maxTick;
    private final TimingWheel wheel;
    private final ReadAhead readAhead;
    private final Precascade precascade;
    private final AtomicLong wakeUps = new AtomicLong();
    private final Consumer<TimeoutHandle> take = this::take;
    private final Consumer<TimeoutHandle> unlink = this::unlink;
    /** Set by {@link #observe}, read once per round into {@link #roundObserver}. */
    private volatile RoundObserver observer = RoundObserver.NONE;
    /** The observer of the current round. */
    private RoundObserver roundObserver = RoundObserver.NONE;
    /** The rest of the batch being fired, for {@link #upcoming}: slots [batchNext, batchEnd). */
    private TimingWheel.Entry[] batchRest;

    private int batchNext;
    private int batchEnd;
    private long startTime;
    /** The runtime's scheduled count read in the last round. */
    private long scheduledAtLastRound;
    /** The tick the wheel may advance to: the time read before the take being handed over. */
    private long reach;

    Worker(TimerRuntime runtime, Ticker ticker, long tickNanos, int ticksPerWheel, boolean hierarchical) {
        this.runtime = runtime;
        this.ticker = ticker;
        this.tickNanos = tickNanos;
        this.maxTick = Long.MAX_VALUE / tickNanos;
        this.wheel = new TimingWheel(tickNanos, ticksPerWheel, hierarchical);
        this.readAhead = new ReadAhead(wheel, tickNanos);
        this.precascade = new Precascade(wheel);
    }

    @Override
    public void run() {
        if (!readStartTime()) {
            return;
        }
        try {
            while (runtime.isActive()) {
                round();
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
     * One round: read the time, take the hand-offs, fire what is due (bounded), then, unless behind,
     * read ahead and pre-cascade, and sleep until the next tick with work.
     *
     * <p>The time is read before the hand-offs are taken: whatever was handed off before the clock
     * reached {@code now} is then taken in time to fire at its own tick. A take is handed over in
     * bounded portions, over several rounds: until it is all in the wheel nothing fires, and then
     * the wheel advances only to the time read before that take ({@code reach}); what was scheduled
     * since is taken by the next round. In a grace period the wheel goes no further than its last tick.
     */
    private void round() {
        long graceEnd = runtime.graceEndTick();
        long now = Math.min(currentTick(), graceEnd);
        if (!runtime.takingNew()) {
            reach = now;
        }
        long roundStart = System.nanoTime();
        roundObserver = observer;
        roundObserver.startRound(roundStart);
        boolean handedOff = takeHandOffs();
        boolean taking = runtime.takingNew();
        long nextEvent = taking || !runtime.isActive()
                ? wheel.nextEventTick()
                : wheel.advance(reach, ROUND_WORK_LIMIT, this); // calls cascaded and expired per tick
        // Behind: a take still being handed over, the work limit cut the round short, or the wheel
        // could only reach an earlier time. Then go on at once.
        boolean behind = (taking || nextEvent <= reach || reach < now) && runtime.isActive();
        endGraceIfDone(graceEnd, behind);
        readAhead.forgetIfBefore(now);
        if (!behind && readAhead.isReading()) {
            readAhead.read(now, System.nanoTime() + AHEAD_OF_TIME_NANOS);
            roundObserver.endPhase(RoundObserver.EXPIRE);
        }
        boolean reading = readAhead.isReading();
        boolean precascading = !behind && runtime.isActive() && precascade.run(roundStart + AHEAD_OF_TIME_NANOS);
        runtime.publishTick(wheel.currentTick());
        runtime.flushLogs(false);
        roundObserver.endRound();
        long wake = planWake(now, handedOff, precascading);
        if (behind || reading || handOffsNeedARound(now, wake) || !runtime.isActive()) {
            runtime.awake();
            return;
        }
        sleepUntil(wake);
    }

    /** Reads the start time; false (and the timer stopped) if the ticker fails. */
    private boolean readStartTime() {
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
            return false;
        }
        runtime.started(startTime);
        return true;
    }

    /**
     * Takes a bounded portion of the new and the cancelled timeouts handed off, and answers the
     * queries.
     *
     * @return whether anything was handed off
     */
    private boolean takeHandOffs() {
        boolean handedOff = runtime.takeNew(take, TAKE_LIMIT) | runtime.takeCancelled(unlink, TAKE_LIMIT);
        answerQueries();
        roundObserver.endPhase(RoundObserver.TAKE);
        return handedOff;
    }

    @Override
    public void cascaded(long tick) {
        runtime.publishTick(tick);
        runtime.dueAt(tick * tickNanos);
        roundObserver.endPhase(RoundObserver.CASCADE);
    }

    @Override
    public boolean expired(long tick, TimingWheel.Entry[] due, int count) {
        roundObserver.endPhase(RoundObserver.EXPIRE);
        fire(due, count);
        roundObserver.endPhase(RoundObserver.DISPATCH);
        return runtime.isActive();
    }

    /**
     * In a grace period: done once nothing more can fire by its last tick. The next event tick may
     * still count a timeout cancelled meanwhile; the pending count does not.
     */
    private void endGraceIfDone(long graceEnd, boolean behind) {
        if (graceEnd != TimingWheel.NO_TICK
                && !behind
                && !runtime.hasNewTimeouts()
                && (wheel.nextEventTick() > graceEnd || runtime.pending() == 0)) {
            runtime.graceOver();
        }
    }

    /**
     * When to wake (ns since start, or {@link TimerRuntime#IDLE}), published to the producers: the
     * next tick with work, or the next tick at all after a hand-off, with producers busy (anything
     * scheduled since the last round, even if cancelled and taken back at once, so that cancelled
     * timeouts do not pile up in the stacks and no producer has to wake the worker for them) or
     * while pre-cascading; earlier before a long sleep's end to read ahead, or for the summary line
     * of repeated failures.
     */
    private long planWake(long now, boolean handedOff, boolean precascading) {
        long next = Math.min(wheel.nextEventTick(), wheel.nextPrecascadeTick());
        long scheduledSoFar = runtime.scheduled();
        boolean active = handedOff || scheduledSoFar != scheduledAtLastRound;
        scheduledAtLastRound = scheduledSoFar;
        long wakeTick = readAhead.planWake(now, active || precascading ? Math.min(next, now + 1) : next);
        long wake = wakeTick > maxTick ? TimerRuntime.IDLE : wakeTick * tickNanos;
        runtime.dueAt(wake);
        long flushAt = runtime.nextLogFlush();
        if (flushAt != Long.MAX_VALUE) {
            wake = Math.min(wake, Math.max(flushAt - startTime, 0));
        }
        runtime.sleepingUntil(wake);
        return wake;
    }

    /**
     * Hand-offs made since the take (their producers may have read "awake" and not woken the
     * worker) need another round at once only if the worker would otherwise sleep past the next
     * tick: nothing handed off is due sooner, and a query wakes the worker itself. Going round for
     * every push would keep the worker spinning on the stripes' tops under steady load, pulling the
     * producers' cache lines away from them.
     */
    private boolean handOffsNeedARound(long now, long wake) {
        return wake - tickNanos > now * tickNanos && runtime.hasHandOffs();
    }

    private void sleepUntil(long wake) {
        Thread.interrupted(); // a task's interrupt must not cut every later sleep short
        if (wake == TimerRuntime.IDLE) {
            ticker.sleep();
        } else {
            ticker.sleepUntil(startTime + wake);
        }
        runtime.awake();
        wakeUps.incrementAndGet();
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
     * Runs (or hands to the executor) the {@code count} timeouts the wheel took due (the wheel
     * clears their slots afterwards). The expired count goes up per timeout, before its task starts
     * (a task or a thread it signals never sees its own timeout pending); the queries and the
     * lateness clock (see {@link LatenessListener}) are looked at once per group of timeouts, so that
     * a tick with thousands due stays cheap.
     */
    private void fire(TimingWheel.Entry[] batch, int count) {
        LatenessListener listener = runtime.latenessListener();
        long clock = 0;
        int fired = 0;
        batchRest = batch;
        batchEnd = count;
        for (int i = 0; i < count; i++) {
            TimeoutHandle handle = (TimeoutHandle) batch[i];
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

    /** Has {@code observer} told of every round from the next on (for benchmarks: {@link WorkerProfile}). */
    void observe(RoundObserver observer) {
        this.observer = observer;
    }

    RoundObserver observer() {
        return observer;
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
