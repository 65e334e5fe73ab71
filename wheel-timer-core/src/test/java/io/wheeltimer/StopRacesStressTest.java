package io.wheeltimer;

import static io.wheeltimer.StressSupport.AWAIT;
import static io.wheeltimer.StressSupport.runConcurrently;
import static io.wheeltimer.StressSupport.stressTimer;
import static io.wheeltimer.StressSupport.threadDump;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

import io.wheeltimer.StressSupport.Ledger;
import io.wheeltimer.StressSupport.Violations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** stop() racing newTimeout, two concurrent stop() calls, and the first newTimeout racing stop() on a timer never started. */
class StopRacesStressTest {

    /** One newTimeout call of a producer and what came of it. */
    static final class Call {
        final RecordingTask task = new RecordingTask("stress");
        Timeout handle;
        IllegalStateException thrown;
        boolean cancelledByProducer;
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
    void stopRacingNewTimeoutLosesNothing() throws Exception {
        int rounds = 200;
        int producers = 3;
        long seed = System.nanoTime();
        SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < rounds; round++) {
            boolean hierarchical = random.nextBoolean();
            int tickMillis = 1 + random.nextInt(10);
            int stopAfterCalls = random.nextInt(3_000);
            long roundSeed = random.nextLong();
            String context = "round " + round + " (seed " + seed + ", hierarchical=" + hierarchical + ", tick="
                    + tickMillis + "ms, stop after " + stopAfterCalls + " calls)";
            HashedWheelTimer timer = HashedWheelTimer.builder()
                    .name("wheel-stop-race")
                    .tickDuration(Duration.ofMillis(tickMillis))
                    .ticksPerWheel(random.nextBoolean() ? 16 : 512)
                    .hierarchical(hierarchical)
                    .leakDetection(false)
                    .build();
            try {
                // Started up front: a stop() racing the very first start() is a separate bug (see below).
                timer.start();
                AtomicInteger calls = new AtomicInteger();
                AtomicBoolean stopping = new AtomicBoolean();
                List<Callable<?>> bodies = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    long producerSeed = roundSeed + p;
                    bodies.add(() -> {
                        SplittableRandom r = new SplittableRandom(producerSeed);
                        List<Call> mine = new ArrayList<>();
                        while (true) {
                            Call call = new Call();
                            mine.add(call);
                            int dice = r.nextInt(100);
                            long delayNanos = dice < 70
                                    ? TimeUnit.HOURS.toNanos(1)
                                    : dice < 75 ? 0 : r.nextLong(TimeUnit.MILLISECONDS.toNanos(3 * tickMillis));
                            try {
                                call.handle = timer.newTimeout(call.task, delayNanos, TimeUnit.NANOSECONDS);
                            } catch (IllegalStateException e) {
                                call.thrown = e;
                                return mine; // stopped: this producer is done
                            } finally {
                                calls.incrementAndGet();
                            }
                            if (r.nextInt(10) == 0) {
                                call.cancelledByProducer = call.handle.cancel();
                            }
                            if (stopping.get() || calls.get() >= stopAfterCalls) {
                                // Keep racing stop(), but let the stopper and the worker run.
                                Thread.yield();
                            }
                        }
                    });
                }
                AtomicReference<Set<Timeout>> stopped = new AtomicReference<>();
                bodies.add(() -> {
                    while (calls.get() < stopAfterCalls) {
                        Thread.onSpinWait();
                    }
                    stopping.set(true);
                    stopped.set(timer.stop());
                    return null;
                });
                List<Object> results = runConcurrently(Duration.ofSeconds(60), bodies);
                Set<Timeout> unprocessed = stopped.get();

                Violations violations = new Violations();
                Map<Timeout, Call> byHandle = new IdentityHashMap<>();
                long handles = 0;
                long ran = 0;
                long cancelledByProducers = 0;
                long threw = 0;
                for (int p = 0; p < producers; p++) {
                    @SuppressWarnings("unchecked")
                    List<Call> mine = (List<Call>) results.get(p);
                    for (Call call : mine) {
                        RecordingTask task = call.task;
                        if (call.thrown != null) {
                            threw++;
                            if (!"cannot be started once stopped".equals(call.thrown.getMessage())) {
                                violations.add("newTimeout threw " + call.thrown);
                            }
                            if (task.runs.get() != 0 || task.cancels.get() != 0) {
                                violations.add("refused newTimeout, yet its task ran " + task.runs + " times and was"
                                        + " told cancelled " + task.cancels + " times");
                            }
                            continue;
                        }
                        handles++;
                        byHandle.put(call.handle, call);
                        boolean inSet = unprocessed.contains(call.handle);
                        boolean didRun = task.runs.get() > 0;
                        int outcomes = (inSet ? 1 : 0) + (didRun ? 1 : 0) + (call.cancelledByProducer ? 1 : 0);
                        if (outcomes != 1 || task.runs.get() > 1) {
                            violations.add(call.handle + ": ran " + task.runs + " times, in stop() set " + inSet
                                    + ", cancelled by producer " + call.cancelledByProducer
                                    + " (expected exactly one)");
                        }
                        if (didRun) {
                            ran++;
                            if (!call.handle.isExpired() || task.cancels.get() != 0) {
                                violations.add(call.handle + " ran, but isExpired=" + call.handle.isExpired()
                                        + ", cancelled() calls " + task.cancels);
                            }
                        }
                        if (inSet || call.cancelledByProducer) {
                            if (!call.handle.isCancelled() || task.cancels.get() != 1) {
                                violations.add(call.handle + " cancelled (by stop: " + inSet + "), but isCancelled="
                                        + call.handle.isCancelled() + ", cancelled() calls "
                                        + task.cancels);
                            }
                        }
                        if (call.cancelledByProducer) {
                            cancelledByProducers++;
                        }
                    }
                }
                for (Timeout t : unprocessed) {
                    if (!byHandle.containsKey(t)) {
                        violations.add("stop() returned a timeout no newTimeout returned: " + t);
                    }
                }
                violations.assertNone(context);
                assertThat(threw)
                        .as("each producer ended on an IllegalStateException, " + context)
                        .isEqualTo(producers);
                assertThat(timer.state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
                assertThat(timer.pendingTimeouts())
                        .as("pendingTimeouts, " + context)
                        .isZero();
                TimerStats stats = timer.stats();
                assertThat(stats.pending()).as(context).isZero();
                assertThat(stats.scheduled())
                        .as("scheduled == handles returned, " + context)
                        .isEqualTo(handles);
                assertThat(stats.expired() + stats.cancelled())
                        .as("expired + cancelled, " + context)
                        .isEqualTo(stats.scheduled());
                assertThat(stats.expired()).as("expired == ran, " + context).isEqualTo(ran);
                assertThat(stats.cancelled())
                        .as("cancelled == stop set + producer cancels, " + context)
                        .isEqualTo(unprocessed.size() + cancelledByProducers);
                assertThat(timer.stop()).as("second stop(), " + context).isEmpty();
                assertThatThrownBy(() -> timer.newTimeout(t -> {}, 1, TimeUnit.SECONDS))
                        .isInstanceOf(IllegalStateException.class);
                assertThat(timer.pendingTimeouts())
                        .as("pending after a refused newTimeout")
                        .isZero();
            } finally {
                TestTimers.stopQuietly(timer);
            }
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
    void concurrentStopHandsTheTimeoutsToExactlyOneCaller() throws Exception {
        for (int round = 0; round < 40; round++) {
            boolean hierarchical = round % 2 == 0;
            HashedWheelTimer timer = stressTimer("wheel-double-stop")
                    .ticksPerWheel(32)
                    .hierarchical(hierarchical)
                    .build();
            try {
                int n = 3_000;
                Ledger ledger = new Ledger(n);
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int id = 0; id < n; id++) {
                    // Most far away; a few short ones still expiring while stop() runs.
                    long delay = id % 10 == 0 ? random.nextLong(3_000_000) : TimeUnit.HOURS.toNanos(1) + id;
                    ledger.handles.set(id, timer.newTimeout(ledger.task(id), delay, TimeUnit.NANOSECONDS));
                }
                List<Object> results = runConcurrently(Duration.ofSeconds(60), List.of(timer::stop, timer::stop));
                @SuppressWarnings("unchecked")
                Set<Timeout> a = (Set<Timeout>) results.get(0);
                @SuppressWarnings("unchecked")
                Set<Timeout> b = (Set<Timeout>) results.get(1);
                String context = "round " + round + ", sizes " + a.size() + " and " + b.size();
                assertThat(a.isEmpty() != b.isEmpty())
                        .as("exactly one stop() gets the timeouts, " + context)
                        .isTrue();
                Set<Timeout> winner = a.isEmpty() ? b : a;
                // The loser may return before the winner finished: wait for the worker to end.
                await().atMost(AWAIT).until(() -> !timer.workerThread().isAlive());

                Violations violations = new Violations();
                int ran = 0;
                for (int id = 0; id < n; id++) {
                    Timeout handle = ledger.handles.get(id);
                    int runs = ledger.runs.get(id);
                    int callbacks = ledger.cancelledCallbacks.get(id);
                    boolean inSet = winner.contains(handle);
                    ran += runs;
                    if (runs + (inSet ? 1 : 0) != 1) {
                        violations.add("id " + id + ": ran " + runs + " times, in stop() set " + inSet);
                    }
                    if (inSet && (!handle.isCancelled() || callbacks != 1)) {
                        violations.add("id " + id + " in the set, isCancelled=" + handle.isCancelled()
                                + ", cancelled() calls " + callbacks);
                    }
                    if (!inSet && callbacks != 0) {
                        violations.add("id " + id + " not in the set, yet cancelled() called " + callbacks);
                    }
                }
                violations.assertNone(context);
                assertThat(winner).as(context).hasSize(n - ran);
                assertThat(timer.pendingTimeouts()).isZero();
                TimerStats stats = timer.stats();
                assertThat(stats.scheduled()).isEqualTo(n);
                assertThat(stats.expired()).isEqualTo(ran);
                assertThat(stats.cancelled()).isEqualTo(winner.size());
                assertThat(timer.stop()).isEmpty();
            } finally {
                TestTimers.stopQuietly(timer);
            }
        }
    }

    /**
     * The first {@code newTimeout} (or {@code start()}) racing {@code stop()} on a timer that was
     * never started can hang forever. {@code start()} reads {@code INIT}, {@code stop()} then CASes
     * {@code INIT -> SHUTDOWN} and returns (without counting down {@code startedLatch}), the
     * {@code start()} CAS {@code INIT -> STARTED} fails, the switch falls through to
     * {@code awaitStarted()}, which waits (uninterruptibly) for a worker that will never start.
     * Expected: {@code newTimeout} throws {@code IllegalStateException} (or returns a handle that
     * stop() cancelled). The stop() thread's delay adapts so that the two calls keep landing
     * close together; it hangs within a few dozen rounds on a 2-core machine.
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
    void firstNewTimeoutRacingStopNeverHangs() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool(TestTimers.daemonThreads("stress-init-race"));
        try {
            int spin = 0;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (int round = 0; round < 5_000 && System.nanoTime() < end; round++) {
                HashedWheelTimer timer = HashedWheelTimer.builder()
                        .name("wheel-init-race")
                        .leakDetection(false)
                        .build();
                AtomicInteger ready = new AtomicInteger();
                int delay = spin;
                Future<Object> producer = threads.submit(() -> {
                    ready.incrementAndGet();
                    while (ready.get() < 2) {
                        Thread.onSpinWait();
                    }
                    spin(-delay);
                    try {
                        return timer.newTimeout(t -> {}, 1, TimeUnit.HOURS);
                    } catch (IllegalStateException e) {
                        return e;
                    }
                });
                Future<Set<Timeout>> stopper = threads.submit(() -> {
                    ready.incrementAndGet();
                    while (ready.get() < 2) {
                        Thread.onSpinWait();
                    }
                    spin(delay);
                    return timer.stop();
                });
                Set<Timeout> unprocessed = stopper.get(30, TimeUnit.SECONDS);
                Object outcome;
                try {
                    outcome = producer.get(10, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    throw new AssertionError("round " + round + ": newTimeout racing stop() on an unstarted timer"
                            + " is still blocked after 10 s (state " + timer.state() + "):\n" + threadDump());
                }
                if (outcome instanceof Timeout) {
                    assertThat(unprocessed).as("round %d", round).contains((Timeout) outcome);
                } else {
                    assertThat(outcome).isInstanceOf(IllegalStateException.class);
                }
                // Keep the two calls close: stop earlier if the timer got started, later if not.
                boolean started = timer.workerThread().getState() != Thread.State.NEW;
                spin += started ? -1 : 1;
                TestTimers.stopQuietly(timer);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static void spin(int iterations) {
        for (int i = 0; i < iterations; i++) {
            Thread.onSpinWait();
        }
    }
}
