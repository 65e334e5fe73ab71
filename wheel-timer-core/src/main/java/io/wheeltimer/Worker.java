package io.wheeltimer;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The loop that drives a {@link TimerRuntime}: the one thread that owns the {@link TimingWheel}.
 * Each round it reads the time, takes the timeouts handed off ({@link HandOff}) since the last
 * round (new and cancelled), advances the wheel to the tick it read, has {@link Dispatch} run what
 * is due, and sleeps until the next tick with work. With nothing pending it sleeps until woken.
 *
 * <p>It talks only to the runtime's parts and the wheel; nothing
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
     * HandOff#takeNew}), and again on the cancelled ones: handles visited to put a take in push
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
    private final Lifecycle lifecycle;
    private final HandOff handOff;
    private final Ticker ticker;
    private final long tickNanos;
    private final long maxTick;
    private final TimingWheel wheel;
    private final ReadAhead readAhead;
    private final Precascade precascade;
    private final AtomicLong wakeUps = new AtomicLong();
    private final Consumer<TimeoutHandle> take = this::take;
    private final Consumer<TimeoutHandle> unlink = this::unlink;
    /** {@link #upcoming}, made once: the worker looks for queries every round. */
    private final IntFunction<List<TimeoutInfo>> soonest = this::upcoming;
    /** Set by {@link #observe}, read once per round into {@link #roundObserver}. */
    private volatile RoundObserver observer = RoundObserver.NONE;
    /** The observer of the current round. */
    private RoundObserver roundObserver = RoundObserver.NONE;
    /** The rest of the batch being fired, for {@link #upcoming}: slots [batchNext, batchEnd). */
    private TimingWheel.Entry[] batchRest;

    private int batchNext;
    private int batchEnd;
    private long startNanos;
    /** The runtime's scheduled count read in the last round. */
    private long scheduledAtLastRound;
    /** The tick the wheel may advance to: the time read before the take being handed over. */
    private long reachTick;

    Worker(TimerRuntime runtime, Ticker ticker, long tickNanos, int ticksPerWheel, boolean hierarchical) {
        this.runtime = runtime;
        this.lifecycle = runtime.lifecycle;
        this.handOff = runtime.handOff;
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
            while (lifecycle.isActive()) {
                round();
            }
        } catch (Throwable t) {
            stopOnError("died; its pending timeouts are cancelled", t);
        } finally {
            handOff.awake();
            handOff.dueAt(HandOff.IDLE);
            cancelAll();
            runtime.dispatch.flushLogs(true);
            lifecycle.graceOver();
        }
    }

    /**
     * One round: read the time, take the hand-offs, fire what is due (bounded), then, unless behind,
     * read ahead and pre-cascade, and sleep until the next tick with work.
     *
     * <p>The time is read before the hand-offs are taken: whatever was handed off before the clock
     * reached {@code nowTick} is then taken in time to fire at its own tick. A take is handed over in
     * bounded portions, over several rounds: until it is all in the wheel nothing fires, and then
     * the wheel advances only to the time read before that take ({@code reachTick}); what was scheduled
     * since is taken by the next round. In a grace period the wheel goes no further than its last tick.
     */
    private void round() {
        long graceEndTick = lifecycle.graceEndTick();
        long nowTick = Math.min(currentTick(), graceEndTick);
        if (!handOff.takingNew()) {
            reachTick = nowTick;
        }
        long roundStartNanos = System.nanoTime();
        roundObserver = observer;
        roundObserver.startRound(roundStartNanos);
        boolean handedOff = takeHandOffs();
        boolean taking = handOff.takingNew();
        long nextEventTick = taking || !lifecycle.isActive()
                ? wheel.nextEventTick()
                : wheel.advance(reachTick, ROUND_WORK_LIMIT, this); // calls cascaded and expired per tick
        // Behind: a take still being handed over, the work limit cut the round short, or the wheel
        // could only reach an earlier time. Then go on at once.
        boolean behind = (taking || nextEventTick <= reachTick || reachTick < nowTick) && lifecycle.isActive();
        endGraceIfDone(graceEndTick, behind);
        readAhead.forgetIfBefore(nowTick);
        if (!behind && readAhead.isReading()) {
            readAhead.read(nowTick, System.nanoTime() + AHEAD_OF_TIME_NANOS);
            roundObserver.endPhase(RoundObserver.EXPIRE);
        }
        boolean reading = readAhead.isReading();
        boolean precascading = !behind && lifecycle.isActive() && precascade.run(roundStartNanos + AHEAD_OF_TIME_NANOS);
        handOff.publishTick(wheel.currentTick());
        runtime.dispatch.flushLogs(false);
        roundObserver.endRound();
        long wakeNanos = planWake(nowTick, handedOff, precascading);
        if (behind || reading || handOffsNeedARound(nowTick, wakeNanos) || !lifecycle.isActive()) {
            handOff.awake();
            return;
        }
        sleepUntil(wakeNanos);
    }

    /** Reads the start time; false (and the timer stopped) if the ticker fails. */
    private boolean readStartTime() {
        try {
            ticker.wake(Thread.currentThread()); // introduces this worker to the ticker before anyone can schedule
            startNanos = ticker.nanoTime();
        } catch (Throwable t) {
            stopOnError("could not read its ticker; the timer is stopped", t);
            lifecycle.started(0); // lets start() return; it then finds the timer stopped
            return false;
        }
        lifecycle.started(startNanos);
        return true;
    }

    private void stopOnError(String what, Throwable t) {
        TimerRuntime.LOG.log(System.Logger.Level.ERROR, "The worker of " + runtime + " " + what, t);
        lifecycle.markStopped();
    }

    /**
     * Takes a bounded portion of the new and the cancelled timeouts handed off, and answers the
     * queries.
     *
     * @return whether anything was handed off
     */
    private boolean takeHandOffs() {
        boolean handedOff = handOff.takeNew(take, TAKE_LIMIT) | handOff.takeCancelled(unlink, TAKE_LIMIT);
        answerQueries();
        roundObserver.endPhase(RoundObserver.TAKE);
        return handedOff;
    }

    @Override
    public void cascaded(long tick) {
        handOff.publishTick(tick);
        handOff.dueAt(tick * tickNanos);
        roundObserver.endPhase(RoundObserver.CASCADE);
    }

    @Override
    public boolean expired(long tick, TimingWheel.Entry[] due, int count) {
        roundObserver.endPhase(RoundObserver.EXPIRE);
        fire(due, count);
        roundObserver.endPhase(RoundObserver.DISPATCH);
        return lifecycle.isActive();
    }

    /**
     * In a grace period: done once nothing more can fire by its last tick. The next event tick may
     * still count a timeout cancelled meanwhile; the pending count does not.
     */
    private void endGraceIfDone(long graceEndTick, boolean behind) {
        if (graceEndTick != TimingWheel.NO_TICK
                && !behind
                && !handOff.hasNewTimeouts()
                && (wheel.nextEventTick() > graceEndTick || runtime.counters.pending() == 0)) {
            lifecycle.graceOver();
        }
    }

    /**
     * When to wake (ns since start, or {@link HandOff#IDLE}), published to the producers: the
     * next tick with work, or the next tick at all after a hand-off, with producers busy (anything
     * scheduled since the last round, even if cancelled and taken back at once, so that cancelled
     * timeouts do not pile up in the stacks and no producer has to wake the worker for them) or
     * while pre-cascading; earlier before a long sleep's end to read ahead, or for the summary line
     * of repeated failures.
     */
    private long planWake(long nowTick, boolean handedOff, boolean precascading) {
        long nextTick = Math.min(wheel.nextEventTick(), wheel.nextPrecascadeTick());
        long scheduledSoFar = runtime.counters.scheduled.sum();
        boolean active = handedOff || scheduledSoFar != scheduledAtLastRound;
        scheduledAtLastRound = scheduledSoFar;
        long wakeTick =
                readAhead.planWake(nowTick, active || precascading ? Math.min(nextTick, nowTick + 1) : nextTick);
        long wakeNanos = wakeTick > maxTick ? HandOff.IDLE : wakeTick * tickNanos;
        handOff.dueAt(wakeNanos);
        long flushAtNanos = runtime.dispatch.nextLogFlushNanos();
        if (flushAtNanos != Long.MAX_VALUE) {
            wakeNanos = Math.min(wakeNanos, Math.max(flushAtNanos - startNanos, 0));
        }
        handOff.sleepingUntil(wakeNanos);
        return wakeNanos;
    }

    /**
     * Hand-offs made since the take (their producers may have read "awake" and not woken the
     * worker) need another round at once only if the worker would otherwise sleep past the next
     * tick: nothing handed off is due sooner, and a query wakes the worker itself. Going round for
     * every push would keep the worker spinning on the stripes' tops under steady load, pulling the
     * producers' cache lines away from them.
     */
    private boolean handOffsNeedARound(long nowTick, long wakeNanos) {
        return wakeNanos - tickNanos > nowTick * tickNanos && (handOff.hasTimeouts() || runtime.upcoming.hasQueries());
    }

    private void sleepUntil(long wakeNanos) {
        Thread.interrupted(); // a task's interrupt must not cut every later sleep short
        if (wakeNanos == HandOff.IDLE) {
            ticker.sleep();
        } else {
            ticker.sleepUntil(startNanos + wakeNanos);
        }
        handOff.awake();
        wakeUps.incrementAndGet();
    }

    private long currentTick() {
        return elapsedNanos() / tickNanos;
    }

    private long elapsedNanos() {
        return Math.max(ticker.nanoTime() - startNanos, 0);
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
        LatenessListener listener = runtime.dispatch.latenessListener();
        long clockNanos = 0;
        int fired = 0;
        batchRest = batch;
        batchEnd = count;
        for (int i = 0; i < count; i++) {
            TimeoutHandle handle = (TimeoutHandle) batch[i];
            batchNext = i + 1;
            if (lifecycle.isStopped()) {
                // stop() came while a task of this round ran: the rest of the round never runs.
                runtime.cancelForStop(handle);
                continue;
            }
            // Fails if a cancel won the race; the cancelled stack then finds it already unlinked.
            if (!handle.compareAndSetState(TimeoutHandle.IN_WHEEL, TimeoutHandle.EXPIRED)) {
                continue;
            }
            if (listener != null && (fired & (LATENESS_CLOCK_EVERY - 1)) == 0) {
                clockNanos = ticker.nanoTime() - startNanos;
            }
            fired++;
            runtime.dispatch.dispatch(handle, listener, clockNanos);
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

    /** Answers the queries handed off through {@link Upcoming#ask}. */
    private void answerQueries() {
        runtime.upcoming.answer(soonest);
    }

    /**
     * Worker thread only: up to {@code limit} pending timeouts, soonest first, from the wheel, the
     * rest of the batch being fired and the stacks of those not taken yet.
     */
    List<TimeoutInfo> upcoming(int limit) {
        return Upcoming.soonest(
                limit,
                offer -> {
                    wheel.forEach(entry -> offer.accept((TimeoutHandle) entry));
                    for (int i = batchNext; batchRest != null && i < batchEnd; i++) {
                        offer.accept((TimeoutHandle) batchRest[i]); // due this tick, not run yet
                    }
                    handOff.forEachNotTaken(offer);
                },
                () -> ticker.nanoTime() - startNanos);
    }
}
