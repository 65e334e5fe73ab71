package io.wheeltimer.netty;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.testing.ManualTicker;
import io.wheeltimer.testsupport.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * {@link TimerTask#cancelled} through the view, side by side with Netty's own {@link
 * io.netty.util.HashedWheelTimer}: each test makes the same calls on both and expects the same
 * events, in the same order, on the same kind of thread.
 *
 * <p>What Netty's timer does (4.2, read from its source and pinned here by running it): a {@code
 * cancel()} that wins only marks the timeout and queues it; the worker calls the task's {@code
 * cancelled} at its next tick, so after {@code cancel()} returned and on the timer's thread, also
 * when the cancel came from a task on that thread. A task that ran is never told. {@code stop()}
 * cancels the timeouts it returns only after its worker has ended, so their tasks are never told;
 * a cancel queued before the stop is still told by the worker on its way out. An exception from
 * {@code cancelled} is logged at WARNING and the worker goes on.
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class NettyTimerCancelledTest {

    private static final String ON_THE_TIMERS_THREAD = "on the timer's thread";

    private final NettySide netty = new NettySide();
    private final ViewSide view = new ViewSide();
    private final List<Side> sides = List.of(netty, view);
    private final List<HashedWheelTimer> extraWheels = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopTimers() {
        netty.timer.stop();
        view.wheel.stop();
        extraWheels.forEach(HashedWheelTimer::stop);
    }

    @Test
    void aWinningCancelTellsTheTaskOnceAfterCancelReturnedOnTheTimersThread() {
        for (Side side : sides) {
            Listening task = new Listening(side);
            Timeout timeout = side.timer().newTimeout(task, 1, HOURS);

            side.whileTheTimersThreadIsBusy(() -> {
                side.record("cancel() " + timeout.cancel());
                side.record("cancel() " + timeout.cancel());
            });
            side.settle();

            assertThat(task.told).as(side.name).containsExactly(timeout);
        }
        assertBothSaw("cancel() true", "cancel() false", "cancelled(a cancelled timeout) " + ON_THE_TIMERS_THREAD);
    }

    @Test
    void aTimeoutWhoseTaskRanIsNeverToldItWasCancelled() {
        for (Side side : sides) {
            Timeout timeout = side.timer().newTimeout(new Listening(side), 0, MILLISECONDS);
            side.settle();

            side.record("cancel() " + timeout.cancel());
            side.settle();
        }
        assertBothSaw("run " + ON_THE_TIMERS_THREAD, "cancel() false");
    }

    @Test
    void aCancelFromATaskOnTheTimersThreadIsToldOnlyAfterThatTaskReturned() {
        for (Side side : sides) {
            Timeout target = side.timer().newTimeout(new Listening(side), 1, HOURS);
            side.timer()
                    .newTimeout(
                            t -> {
                                side.record("cancel() " + target.cancel() + " " + side.where());
                                side.record("the cancelling task returns");
                            },
                            0,
                            MILLISECONDS);

            side.settle();
        }
        assertBothSaw(
                "cancel() true " + ON_THE_TIMERS_THREAD,
                "the cancelling task returns",
                "cancelled(a cancelled timeout) " + ON_THE_TIMERS_THREAD);
    }

    @Test
    void stopReturnsTheTimeoutsItCancelledWithoutTellingTheirTasks() {
        for (Side side : sides) {
            Timeout pending = side.timer().newTimeout(new Listening(side), 1, HOURS);

            Set<Timeout> returned = side.stop();
            side.record("stop() returned it: " + returned.contains(pending) + ", cancelled: " + pending.isCancelled());
            side.settle();
        }
        assertBothSaw("stop() returned it: true, cancelled: true");
    }

    @Test
    void aCancelThatWonBeforeStopIsStillToldOnTheTimersThread() {
        for (Side side : sides) {
            Listening task = new Listening(side);
            Timeout timeout = cancelWhileTheTimersThreadIsBusy(side, task);

            assertThat(side.stop()).as(side.name).isEmpty();
            side.settle();

            assertThat(task.told).as(side.name).containsExactly(timeout);
        }
        assertBothSaw("cancel() true", "cancelled(a cancelled timeout) " + ON_THE_TIMERS_THREAD);
    }

    /** For the view the timer that runs the tasks is the shared wheel: its stop is Netty's stop here. */
    @Test
    void stoppingTheSharedTimerTellsNoTaskOfTheTimeoutsItCancels() {
        for (Side side : sides) {
            Timeout pending = side.timer().newTimeout(new Listening(side), 1, HOURS);

            side.stopTheTimersThread();
            side.record("cancelled: " + pending.isCancelled());
        }
        assertBothSaw("cancelled: true");
    }

    @Test
    void aCancelJustBeforeTheSharedTimerStopsIsToldOnItsThreadOnItsWayOut() {
        for (Side side : sides) {
            Listening task = new Listening(side);
            Timeout timeout = cancelWhileTheTimersThreadIsBusy(side, task);

            side.stopTheTimersThread();

            assertThat(task.told).as(side.name).containsExactly(timeout);
        }
        assertBothSaw("cancel() true", "cancelled(a cancelled timeout) " + ON_THE_TIMERS_THREAD);
    }

    @Test
    void aTaskWhoseCancelledThrowsIsLoggedAndTheTimerGoesOn() {
        try (LogCapture nettysLog = LogCapture.of(io.netty.util.HashedWheelTimer.class);
                LogCapture ours = LogCapture.of(NettyTimer.class)) {
            for (Side side : sides) {
                Throwing throwing = new Throwing(side);
                Timeout first = side.timer().newTimeout(throwing, 1, HOURS);
                side.whileTheTimersThreadIsBusy(() -> side.record("cancel() " + first.cancel()));
                side.settle();

                Listening next = new Listening(side);
                Timeout second = side.timer().newTimeout(next, 1, HOURS);
                side.whileTheTimersThreadIsBusy(() -> side.record("cancel() " + second.cancel()));
                side.settle();
                side.timer().newTimeout(new Listening(side), 0, MILLISECONDS);
                side.settle();

                assertThat(next.told).as(side.name).containsExactly(second);
            }
            assertBothSaw(
                    "cancel() true",
                    "cancelled(a cancelled timeout) " + ON_THE_TIMERS_THREAD + ", and throws",
                    "cancel() true",
                    "cancelled(a cancelled timeout) " + ON_THE_TIMERS_THREAD,
                    "run " + ON_THE_TIMERS_THREAD);
            assertThat(nettysLog.records(Level.WARNING))
                    .singleElement()
                    .satisfies(r -> assertThat(r.getThrown()).isSameAs(netty.thrown.get(0)));
            assertThat(ours.records(Level.WARNING)).singleElement().satisfies(r -> {
                assertThat(r.getThrown()).isSameAs(view.thrown.get(0));
                assertThat(r.getMessage()).contains("TimerTask.cancelled()", "throws on purpose");
            });
            assertThat(view.wheel.stats().failed())
                    .as("not a failure of a wheel task")
                    .isZero();
        }
    }

    @Test
    void theNoticeIsNotOneOfTheSharedTimersTimeouts() {
        Listening task = new Listening(view);
        Timeout timeout = view.timer().newTimeout(task, 1, HOURS);
        assertThat(timeout.cancel()).isTrue();

        assertThat(view.wheel.upcoming(10)).as("the notice waits, not listed").isEmpty();
        assertThat(view.wheel.pendingTimeouts()).isZero();
        view.settle();

        assertThat(task.told).as("the notice ran").containsExactly(timeout);
        io.wheeltimer.TimerStats stats = view.wheel.stats();
        assertThat(stats.scheduled()).as("scheduled").isOne();
        assertThat(stats.cancelled()).as("cancelled").isOne();
        assertThat(stats.expired()).as("expired").isZero();
        assertThat(stats.pending()).as("pending").isZero();
    }

    @Test
    void aNoticeWaitingWhenTheSharedTimerStopsIsToldButNotReturned() {
        Listening task = new Listening(view);
        Timeout timeout = view.timer().newTimeout(task, 1, HOURS);
        assertThat(timeout.cancel()).isTrue();

        Set<io.wheeltimer.Timeout> unprocessed = view.wheel.stop();

        assertThat(unprocessed).as("none of the user's timeouts never ran").isEmpty();
        assertThat(task.told).as("told on the way out").containsExactly(timeout);
        assertThat(view.wheel.stats().cancelled()).as("the user's cancel only").isOne();
    }

    @Test
    void aNoticeIsNotHeldAgainstTheSharedTimersLimitOfPendingTimeouts() {
        ManualTicker ticker = new ManualTicker();
        HashedWheelTimer full = HashedWheelTimer.builder()
                .name("full-wheel")
                .ticker(ticker)
                .maxPendingTimeouts(1)
                .build();
        extraWheels.add(full);
        Timer fullView = NettyTimer.of(full);
        Listening task = new Listening(view);
        Timeout first = fullView.newTimeout(task, 1, HOURS);
        assertThat(first.cancel()).isTrue();

        fullView.newTimeout(new Listening(view), 1, HOURS); // the one pending timeout allowed
        ticker.advance(Duration.ofMillis(100));

        assertThat(task.threads)
                .as("told on the wheel's thread, not refused")
                .singleElement()
                .satisfies(thread -> assertThat(thread.getName()).isEqualTo("full-wheel"));
        assertThat(full.stats().rejected()).isZero();
    }

    @Test
    void aTaskThatDoesNotOverrideCancelledCostsTheWheelNoNotice() {
        Timeout lambdas = view.timer().newTimeout(t -> {}, 1, HOURS);
        assertThat(lambdas.cancel()).isTrue();
        view.settle();

        assertThat(view.wheel.stats().scheduled()).isOne();
        assertThat(view.wheel.stats().expired()).as("no notice ran").isZero();
    }

    /** Told late or elsewhere rather than never: the wheel stopping or full refuses the notice. */
    @Test
    void whenTheWheelRefusesTheNoticeTheTaskIsToldOnTheCancellingThread() {
        for (RuntimeException refusal : List.of(
                new IllegalStateException("cannot accept new timeouts: the timer is stopping"),
                new RejectedExecutionException("at the maximum of pending timeouts"))) {
            Refusing refusing = new Refusing(view.wheel);
            Timer refusingView = NettyTimer.of(refusing);
            Listening task = new Listening(view);
            Timeout timeout = refusingView.newTimeout(task, 1, HOURS);

            refusing.refusal = refusal;
            assertThat(timeout.cancel()).isTrue();

            assertThat(task.told).as(refusal.toString()).containsExactly(timeout);
            assertThat(task.threads).as(refusal.toString()).containsExactly(Thread.currentThread());
        }
    }

    /**
     * On a real clock, the test thread cancels timeouts as they fall due: each one either ran and
     * was never told, or its cancel returned true and its task was told exactly once, on the wheel's
     * thread.
     */
    @Test
    void cancelRacingTheRunTellsExactlyTheTasksWhoseCancelWon() {
        HashedWheelTimer realTime = HashedWheelTimer.builder()
                .name("racing-wheel")
                .tickDuration(Duration.ofMillis(1))
                .build();
        extraWheels.add(realTime);
        Timer racing = NettyTimer.of(realTime);
        ViewSide side = new ViewSide(realTime, null);
        List<Listening> tasks = new ArrayList<>();
        List<Timeout> timeouts = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            Listening task = new Listening(side);
            tasks.add(task);
            timeouts.add(racing.newTimeout(task, 1 + i % 5, MILLISECONDS));
        }

        boolean[] won = new boolean[timeouts.size()];
        for (int i = 0; i < timeouts.size(); i++) {
            won[i] = timeouts.get(i).cancel();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> realTime.pendingTimeouts() == 0);

        for (int i = 0; i < tasks.size(); i++) {
            Listening task = tasks.get(i);
            if (won[i]) {
                assertThat(task.runs).isEmpty();
                assertThat(task.told).containsExactly(timeouts.get(i));
                assertThat(task.threads).extracting(Thread::getName).containsExactly("racing-wheel");
            } else {
                assertThat(task.runs).containsExactly(timeouts.get(i));
                assertThat(task.told).isEmpty();
            }
        }
    }

    /**
     * Schedules {@code task} an hour ahead and cancels it while the timer's thread is busy: the cancel wins,
     * and the notice of it waits for that thread.
     */
    private static Timeout cancelWhileTheTimersThreadIsBusy(Side side, Listening task) {
        Timeout timeout = side.timer().newTimeout(task, 1, HOURS);
        side.whileTheTimersThreadIsBusy(() -> side.record("cancel() " + timeout.cancel()));
        return timeout;
    }

    private void assertBothSaw(String... events) {
        assertThat(netty.events).as("Netty's HashedWheelTimer").containsExactly(events);
        assertThat(view.events).as("the view").containsExactly(events);
    }

    /** One of the two timers that the same calls go to, and what happened on it. */
    private abstract static class Side {
        final String name;
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<Throwable> thrown = new CopyOnWriteArrayList<>();
        private final String timersThreadName;

        Side(String name, String timersThreadName) {
            this.name = name;
            this.timersThreadName = timersThreadName;
        }

        abstract Timer timer();

        /** Returns once the timer's thread has done what is due by now and what that made due at once. */
        abstract void settle();

        /** Runs {@code action} while the timer's thread can do nothing of its own. */
        abstract void whileTheTimersThreadIsBusy(Runnable action);

        /** Stops the timer whose thread runs the tasks: Netty's timer, or the wheel under the view. */
        abstract void stopTheTimersThread();

        Set<Timeout> stop() {
            return timer().stop();
        }

        void record(String event) {
            events.add(event);
        }

        String where() {
            return Thread.currentThread().getName().equals(timersThreadName)
                    ? ON_THE_TIMERS_THREAD
                    : "on " + Thread.currentThread().getName();
        }
    }

    /** Netty's own timer, at a 10 ms tick. */
    private static final class NettySide extends Side {
        final io.netty.util.HashedWheelTimer timer = new io.netty.util.HashedWheelTimer(
                r -> {
                    Thread thread = new Thread(r, "netty-timer");
                    thread.setDaemon(true);
                    return thread;
                },
                10,
                MILLISECONDS);
        private volatile boolean stopped;

        NettySide() {
            super("Netty's HashedWheelTimer", "netty-timer");
        }

        @Override
        Timer timer() {
            return timer;
        }

        /**
         * Two ticks, each seen by a marker timeout: the worker handles the queued cancels at the
         * start of a tick, so once the second marker ran, every cancel queued before was told.
         */
        @Override
        void settle() {
            if (stopped) {
                return; // its worker ended within stop(): nothing of it runs later
            }
            for (int i = 0; i < 2; i++) {
                CountDownLatch ran = new CountDownLatch(1);
                timer.newTimeout(t -> ran.countDown(), 1, MILLISECONDS);
                awaitLatch(ran);
            }
        }

        /** Holds the worker in a task, so that its next tick cannot come while {@code action} runs. */
        @Override
        void whileTheTimersThreadIsBusy(Runnable action) {
            CountDownLatch busy = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            timer.newTimeout(
                    t -> {
                        busy.countDown();
                        holdUntil(release);
                    },
                    1,
                    MILLISECONDS);
            awaitLatch(busy);
            try {
                action.run();
            } finally {
                release.countDown();
            }
        }

        @Override
        Set<Timeout> stop() {
            stopped = true;
            return timer.stop();
        }

        @Override
        void stopTheTimersThread() {
            stop();
        }
    }

    /** A view of a wheel, by default at a 100 ms tick on a {@link ManualTicker}. */
    private static final class ViewSide extends Side {
        final HashedWheelTimer wheel;
        private final ManualTicker ticker;
        private final Timer view;

        ViewSide() {
            this(null, new ManualTicker());
        }

        ViewSide(HashedWheelTimer wheel, ManualTicker ticker) {
            super("the view", wheel == null ? "shared-wheel" : wheel.name());
            this.ticker = ticker;
            this.wheel = wheel != null
                    ? wheel
                    : HashedWheelTimer.builder()
                            .name("shared-wheel")
                            .ticker(ticker)
                            .tickDuration(Duration.ofMillis(100))
                            .build();
            this.view = NettyTimer.of(this.wheel);
        }

        @Override
        Timer timer() {
            return view;
        }

        /** Tick by tick: what a tick's task schedules at once is due at the next boundary. */
        @Override
        void settle() {
            ticker.advance(Duration.ofMillis(100));
            ticker.advance(Duration.ofMillis(100));
        }

        /** The wheel's thread does nothing until the ticker moves. */
        @Override
        void whileTheTimersThreadIsBusy(Runnable action) {
            action.run();
        }

        @Override
        void stopTheTimersThread() {
            wheel.stop();
        }
    }

    /** A Netty task that records its run and its {@code cancelled}, with the thread of each. */
    private static class Listening implements TimerTask {
        final List<Timeout> runs = new CopyOnWriteArrayList<>();
        final List<Timeout> told = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new CopyOnWriteArrayList<>();
        final Side side;

        Listening(Side side) {
            this.side = side;
        }

        @Override
        public void run(Timeout timeout) {
            runs.add(timeout);
            side.record("run " + side.where());
        }

        @Override
        public void cancelled(Timeout timeout) {
            told.add(timeout);
            threads.add(Thread.currentThread());
            side.record("cancelled(" + (timeout.isCancelled() ? "a cancelled timeout" : "a live timeout") + ") "
                    + side.where());
        }
    }

    private static final class Throwing extends Listening {
        Throwing(Side side) {
            super(side);
        }

        @Override
        public void cancelled(Timeout timeout) {
            told.add(timeout);
            side.record("cancelled(" + (timeout.isCancelled() ? "a cancelled timeout" : "a live timeout") + ") "
                    + side.where() + ", and throws");
            IllegalStateException failure = new IllegalStateException("cancelled() failed on purpose");
            side.thrown.add(failure);
            throw failure;
        }

        @Override
        public String toString() {
            return "a task whose cancelled() throws on purpose";
        }
    }

    /** A timer that refuses new timeouts, once told to, as a stopping or full wheel does. */
    private static final class Refusing implements io.wheeltimer.Timer {
        private final io.wheeltimer.Timer timer;
        volatile RuntimeException refusal;

        Refusing(io.wheeltimer.Timer timer) {
            this.timer = timer;
        }

        @Override
        public io.wheeltimer.Timeout newTimeout(
                io.wheeltimer.TimerTask task, long delay, java.util.concurrent.TimeUnit unit) {
            RuntimeException refused = refusal;
            if (refused != null) {
                throw refused;
            }
            return timer.newTimeout(task, delay, unit);
        }

        @Override
        public Set<io.wheeltimer.Timeout> stop() {
            return timer.stop();
        }
    }

    /**
     * On the worker: waits for {@code release} through the interrupt that a {@code stop()} right
     * after the release may send first, and keeps that interrupt for the worker.
     */
    private static void holdUntil(CountDownLatch release) {
        boolean interrupted = false;
        while (release.getCount() > 0) {
            try {
                release.await();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, SECONDS)).as("within 30 s").isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
