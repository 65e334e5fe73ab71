package io.wheeltimer;

import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer.State;
import io.wheeltimer.testing.ManualTicker;
import io.wheeltimer.testsupport.LogCapture;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The behaviour of the Netty-compatible timer, one test per rule, failure paths included. Time is a
 * {@link ManualTicker} wherever time is the subject; where the layout could matter a test runs for
 * both ({@code hierarchical} true and false).
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class HashedWheelTimerTest {

    private static final Duration TICK = Duration.ofMillis(100);
    private static final long TICK_NANOS = TICK.toNanos();
    private static final String NETTY_MESSAGE =
            "Number of pending timeouts (2) is greater than or equal to maximum allowed pending timeouts (1)";

    @RegisterExtension
    final TestTimers timers = TestTimers.stopMayFail();

    private final ExecutorService pool = Executors.newCachedThreadPool(TestTimers.daemonThreads("test-helper"));

    @AfterEach
    void stopHelpers() {
        pool.shutdownNow();
    }

    /** A started timer on {@code ticker} with 100 ms ticks: its boundaries are at k * 100 ms from now. */
    private HashedWheelTimer manualTimer(ManualTicker ticker, boolean hierarchical) {
        return manualTimer(
                HashedWheelTimer.builder().ticker(ticker).tickDuration(TICK).hierarchical(hierarchical));
    }

    private HashedWheelTimer manualTimer(HashedWheelTimer.Builder builder) {
        HashedWheelTimer timer = timers.track(builder.name("manual-timer").build());
        timer.start();
        return timer;
    }

    private static TimerTask noop() {
        return timeout -> {};
    }

    /** Settings, their defaults and getters, the rounding of ticksPerWheel, the sub-millisecond tick and every Netty constructor. */
    @Nested
    class Construction {

        @ParameterizedTest(name = "{0} -> {1}")
        @CsvSource({
            "1, 1",
            "2, 2",
            "3, 4",
            "10, 16",
            "511, 512",
            "512, 512",
            "513, 1024",
            "536870913, 1073741824",
            "1073741824, 1073741824"
        })
        void ticksPerWheelIsRoundedUpToAPowerOfTwo(int given, int expected) {
            HashedWheelTimer viaConstructor =
                    timers.track(new HashedWheelTimer(Executors.defaultThreadFactory(), 100, MILLISECONDS, given));
            HashedWheelTimer viaBuilder =
                    timers.track(HashedWheelTimer.builder().ticksPerWheel(given).build());

            assertThat(viaConstructor.ticksPerWheel()).isEqualTo(expected);
            assertThat(viaBuilder.ticksPerWheel()).isEqualTo(expected);
        }

        static Stream<Arguments> tickDurations() {
            return Stream.of(
                    Arguments.of(
                            "constructor 500 us",
                            (Supplier<HashedWheelTimer>) () -> new HashedWheelTimer(500, TimeUnit.MICROSECONDS),
                            1),
                    Arguments.of(
                            "builder 1 ns",
                            (Supplier<HashedWheelTimer>) () -> HashedWheelTimer.builder()
                                    .tickDuration(Duration.ofNanos(1))
                                    .build(),
                            1),
                    Arguments.of(
                            "constructor 1 ms",
                            (Supplier<HashedWheelTimer>) () -> new HashedWheelTimer(1, MILLISECONDS),
                            0));
        }

        /** A tick shorter than 1 ms is raised to 1 ms with one warning; a tick of exactly 1 ms logs none. */
        @ParameterizedTest(name = "{0}")
        @MethodSource("tickDurations")
        void tickShorterThanOneMillisecondIsRaisedToOneMillisecondWithOneWarning(
                String what, Supplier<HashedWheelTimer> constructor, int warnings) {
            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                HashedWheelTimer timer = timers.track(constructor.get());

                assertThat(timer.tickDuration()).isEqualTo(Duration.ofMillis(1));
                assertThat(log.records(Level.WARNING)).hasSize(warnings);
                assertThat(log.messages(Level.WARNING)).allMatch(m -> m.contains("shorter than 1 ms"));
            }
        }

        @Test
        void largestTickThatFitsTheWheelInALongOfNanosecondsIsAccepted() {
            ThreadFactory factory = Executors.defaultThreadFactory();
            long limit = Long.MAX_VALUE / 512;

            assertThat(timers.track(new HashedWheelTimer(factory, limit - 1, NANOSECONDS, 512))
                            .tickDuration())
                    .isEqualTo(Duration.ofNanos(limit - 1));
            assertThat(timers.track(new HashedWheelTimer(factory, Long.MAX_VALUE - 1, NANOSECONDS, 1))
                            .ticksPerWheel())
                    .isEqualTo(1);
            assertThat(timers.track(HashedWheelTimer.builder()
                                    .tickDuration(Duration.ofDays(106_751))
                                    .ticksPerWheel(1)
                                    .build())
                            .tickDuration())
                    .isEqualTo(Duration.ofDays(106_751));
        }

        @Test
        void builderSettingsAreAppliedAndReportedByTheGetters() {
            AtomicInteger made = new AtomicInteger();
            ThreadFactory factory = r -> {
                made.incrementAndGet();
                return new Thread(r, "from-factory");
            };
            HashedWheelTimer timer = timers.track(HashedWheelTimer.builder()
                    .name("orders")
                    .threadFactory(factory)
                    .tickDuration(Duration.ofMillis(20))
                    .ticksPerWheel(100)
                    .maxPendingTimeouts(42)
                    .hierarchical(false)
                    .leakDetection(false)
                    .build());

            assertThat(made).hasValue(1);
            assertThat(timer.name()).isEqualTo("orders");
            assertThat(timer.workerThread().getName()).isEqualTo("orders");
            assertThat(timer.tickDuration()).isEqualTo(Duration.ofMillis(20));
            assertThat(timer.ticksPerWheel()).isEqualTo(128);
            assertThat(timer.maxPendingTimeouts()).isEqualTo(42);
            assertThat(timer.isHierarchical()).isFalse();
            assertThat(timer.state()).isEqualTo(State.INIT);
            assertThat(timer.toString()).contains("orders").contains("INIT");
        }

        @Test
        void builderDefaults() {
            HashedWheelTimer timer = timers.track(HashedWheelTimer.builder().build());

            assertThat(timer.name()).isEqualTo("wheel-timer");
            assertThat(timer.workerThread().getName()).isEqualTo("wheel-timer");
            assertThat(timer.workerThread().isDaemon()).isTrue();
            assertThat(timer.tickDuration()).isEqualTo(Duration.ofMillis(100));
            assertThat(timer.ticksPerWheel()).isEqualTo(512);
            assertThat(timer.maxPendingTimeouts()).isZero();
            assertThat(timer.isHierarchical()).isEqualTo(HashedWheelTimer.DEFAULT_HIERARCHICAL);
        }

        @Test
        void hierarchicalGetterFollowsTheSettingAndIsFalseForAOneBucketWheel() {
            assertThat(timers.track(HashedWheelTimer.builder()
                                    .hierarchical(true)
                                    .build())
                            .isHierarchical())
                    .isTrue();
            assertThat(timers.track(HashedWheelTimer.builder()
                                    .hierarchical(false)
                                    .build())
                            .isHierarchical())
                    .isFalse();
            // nothing to cascade with one bucket per level: documented as flat
            assertThat(timers.track(HashedWheelTimer.builder()
                                    .hierarchical(true)
                                    .ticksPerWheel(1)
                                    .build())
                            .isHierarchical())
                    .isFalse();
        }

        static Stream<Arguments> nettyConstructors() {
            ThreadFactory f = Executors.defaultThreadFactory();
            Executor direct = Runnable::run;
            return Stream.of(
                    Arguments.of("()", (Supplier<HashedWheelTimer>) HashedWheelTimer::new, 100L, 512, -1L),
                    Arguments.of(
                            "(tick, unit)",
                            (Supplier<HashedWheelTimer>) () -> new HashedWheelTimer(10, MILLISECONDS),
                            10L,
                            512,
                            -1L),
                    Arguments.of(
                            "(tick, unit, wheel)",
                            (Supplier<HashedWheelTimer>) () -> new HashedWheelTimer(10, MILLISECONDS, 64),
                            10L,
                            64,
                            -1L),
                    Arguments.of(
                            "(factory)", (Supplier<HashedWheelTimer>) () -> new HashedWheelTimer(f), 100L, 512, -1L),
                    Arguments.of(
                            "(factory, tick, unit)",
                            (Supplier<HashedWheelTimer>) () -> new HashedWheelTimer(f, 20, MILLISECONDS),
                            20L,
                            512,
                            -1L),
                    Arguments.of(
                            "(factory, tick, unit, wheel)",
                            (Supplier<HashedWheelTimer>) () -> new HashedWheelTimer(f, 20, MILLISECONDS, 32),
                            20L,
                            32,
                            -1L),
                    Arguments.of(
                            "(factory, tick, unit, wheel, leak)",
                            (Supplier<HashedWheelTimer>) () -> new HashedWheelTimer(f, 20, MILLISECONDS, 32, false),
                            20L,
                            32,
                            -1L),
                    Arguments.of(
                            "(factory, tick, unit, wheel, leak, max)",
                            (Supplier<HashedWheelTimer>) () -> new HashedWheelTimer(f, 20, MILLISECONDS, 32, false, 7),
                            20L,
                            32,
                            7L),
                    Arguments.of(
                            "(factory, tick, unit, wheel, leak, max, executor)",
                            (Supplier<HashedWheelTimer>)
                                    () -> new HashedWheelTimer(f, 20, MILLISECONDS, 30, false, 7, direct),
                            20L,
                            32,
                            7L));
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("nettyConstructors")
        void everyNettyConstructorKeepsNettysDefaultsAndWorks(
                String signature, Supplier<HashedWheelTimer> constructor, long tickMillis, int wheel, long max)
                throws Exception {
            HashedWheelTimer timer = timers.track(constructor.get());

            assertThat(timer.tickDuration()).isEqualTo(Duration.ofMillis(tickMillis));
            assertThat(timer.ticksPerWheel()).isEqualTo(wheel);
            assertThat(timer.maxPendingTimeouts()).isEqualTo(max);
            assertThat(timer.isHierarchical()).isEqualTo(HashedWheelTimer.DEFAULT_HIERARCHICAL);
            assertThat(timer.state()).isEqualTo(State.INIT);
            assertThat(timer.name()).isEqualTo(timer.workerThread().getName()).startsWith("pool-");

            RecordingTask task = new RecordingTask("t");
            timer.newTimeout(task, 0, MILLISECONDS);
            assertThat(task.ran.await(10, SECONDS)).isTrue();
            assertThat(task.ranOn).isSameAs(timer.workerThread());
        }
    }

    /** Bad arguments to the constructors, the builder and newTimeout: a clear error naming the input. */
    @Nested
    class Validation {

        /**
         * One bad argument per case, through the constructors and the builder: the call, the
         * exception it must throw, and what its message must name (the input, and the value where
         * the value tells something).
         */
        static Stream<Arguments> badArguments() {
            ThreadFactory f = Executors.defaultThreadFactory();
            Class<IllegalArgumentException> illegal = IllegalArgumentException.class;
            Class<NullPointerException> npe = NullPointerException.class;
            long limit = Long.MAX_VALUE / 512; // the first tick that overflows with 512 ticks per wheel
            List<Arguments> cases = new ArrayList<>();
            for (int wheel : new int[] {0, -1, -3, Integer.MIN_VALUE, (1 << 30) + 1, Integer.MAX_VALUE}) {
                String value = String.valueOf(wheel);
                cases.add(bad(
                        "constructor ticksPerWheel " + value,
                        illegal,
                        () -> new HashedWheelTimer(f, 100, MILLISECONDS, wheel),
                        "ticksPerWheel",
                        value));
                cases.add(bad(
                        "builder ticksPerWheel " + value,
                        illegal,
                        () -> HashedWheelTimer.builder().ticksPerWheel(wheel).build(),
                        "ticksPerWheel",
                        value));
            }
            cases.add(bad(
                    "constructor tickDuration 0",
                    illegal,
                    () -> new HashedWheelTimer(0, MILLISECONDS),
                    "tickDuration"));
            cases.add(bad(
                    "constructor tickDuration -1",
                    illegal,
                    () -> new HashedWheelTimer(-1, MILLISECONDS),
                    "tickDuration",
                    "-1"));
            cases.add(bad(
                    "constructor tickDuration Long.MIN_VALUE",
                    illegal,
                    () -> new HashedWheelTimer(Long.MIN_VALUE, NANOSECONDS),
                    "tickDuration"));
            cases.add(bad(
                    "builder tickDuration zero",
                    illegal,
                    () -> HashedWheelTimer.builder().tickDuration(Duration.ZERO),
                    "tickDuration"));
            cases.add(bad(
                    "builder tickDuration -1 ns",
                    illegal,
                    () -> HashedWheelTimer.builder().tickDuration(Duration.ofNanos(-1)),
                    "tickDuration"));
            cases.add(bad(
                    "constructor tick x 512 overflows a long",
                    illegal,
                    () -> new HashedWheelTimer(f, limit, NANOSECONDS, 512),
                    "tickDuration"));
            cases.add(bad(
                    "constructor tick x 300 (rounded to 512) overflows a long",
                    illegal,
                    () -> new HashedWheelTimer(f, limit, NANOSECONDS, 300),
                    "tickDuration"));
            cases.add(bad(
                    "constructor tick of Long.MAX_VALUE days",
                    illegal,
                    () -> new HashedWheelTimer(f, Long.MAX_VALUE, DAYS, 1),
                    "tickDuration"));
            cases.add(bad(
                    "builder tick x 2 overflows a long",
                    illegal,
                    () -> HashedWheelTimer.builder()
                            .tickDuration(Duration.ofDays(106_751))
                            .ticksPerWheel(2)
                            .build(),
                    "tickDuration"));
            cases.add(bad(
                    "builder tick beyond a long of nanoseconds",
                    illegal,
                    () -> HashedWheelTimer.builder()
                            .tickDuration(Duration.ofDays(200_000))
                            .build(),
                    "tickDuration"));
            cases.add(bad(
                    "builder blank name",
                    illegal,
                    () -> HashedWheelTimer.builder().name(" "),
                    "name"));
            cases.add(bad(
                    "builder empty name",
                    illegal,
                    () -> HashedWheelTimer.builder().name(""),
                    "name"));
            cases.add(bad(
                    "builder threadFactory returning no thread",
                    illegal,
                    () -> HashedWheelTimer.builder().threadFactory(r -> null).build(),
                    "threadFactory"));
            cases.add(bad(
                    "constructor null threadFactory",
                    npe,
                    () -> new HashedWheelTimer((ThreadFactory) null),
                    "threadFactory"));
            cases.add(bad("constructor null unit", npe, () -> new HashedWheelTimer(100, null), "unit"));
            cases.add(bad(
                    "constructor null taskExecutor",
                    npe,
                    () -> new HashedWheelTimer(f, 100, MILLISECONDS, 512, true, 0, null),
                    "taskExecutor"));
            cases.add(bad(
                    "builder null name", npe, () -> HashedWheelTimer.builder().name(null), "name"));
            cases.add(bad(
                    "builder null threadFactory",
                    npe,
                    () -> HashedWheelTimer.builder().threadFactory(null),
                    "threadFactory"));
            cases.add(bad(
                    "builder null tickDuration",
                    npe,
                    () -> HashedWheelTimer.builder().tickDuration(null),
                    "tickDuration"));
            cases.add(bad(
                    "builder null taskExecutor",
                    npe,
                    () -> HashedWheelTimer.builder().taskExecutor(null),
                    "taskExecutor"));
            cases.add(bad(
                    "builder null ticker", npe, () -> HashedWheelTimer.builder().ticker(null), "ticker"));
            return cases.stream();
        }

        private static Arguments bad(
                String what, Class<? extends Throwable> type, ThrowingCallable call, String... named) {
            return Arguments.of(what, type, call, named);
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("badArguments")
        void badArgumentIsRefusedWithAnErrorNamingIt(
                String what, Class<? extends Throwable> type, ThrowingCallable call, String[] named) {
            assertThatThrownBy(call).as(what).isInstanceOf(type).hasMessageContainingAll(named);
        }

        @Test
        void nullNewTimeoutArgumentsAreNullPointerNamingTheParameterAndDoNotStartTheTimer() {
            HashedWheelTimer timer = timers.track(HashedWheelTimer.builder().build());

            assertThatThrownBy(() -> timer.newTimeout(null, 1, SECONDS))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("task");
            assertThatThrownBy(() -> timer.newTimeout(noop(), 1, null))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("unit");
            assertThatThrownBy(() -> timer.newTimeout(noop(), (Duration) null))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("delay");
            assertThatThrownBy(() -> timer.newTimeout(null, Duration.ofSeconds(1)))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("task");

            assertThat(timer.state()).isEqualTo(State.INIT);
            assertThat(timer.stats().scheduled()).isZero();
        }
    }

    /** Lazy and explicit start, stop() and what it returns, newTimeout after stop, and a stop racing a running task. */
    @Nested
    class StartAndStop {

        @Test
        void workerStartsLazilyOnTheFirstNewTimeout() {
            HashedWheelTimer timer = timers.track(HashedWheelTimer.builder().build());

            assertThat(timer.state()).isEqualTo(State.INIT);
            assertThat(timer.stats().state()).isEqualTo(State.INIT);
            assertThat(timer.workerThread().getState()).isEqualTo(Thread.State.NEW);
            assertThat(timer.upcoming(10)).isEmpty();

            timer.newTimeout(noop(), 1, TimeUnit.HOURS);

            assertThat(timer.state()).isEqualTo(State.STARTED);
            assertThat(timer.workerThread().isAlive()).isTrue();
        }

        @Test
        void startStartsTheWorkerAndMayBeCalledAgain() {
            HashedWheelTimer timer = timers.track(HashedWheelTimer.builder().build());

            timer.start();
            timer.start();

            assertThat(timer.state()).isEqualTo(State.STARTED);
            assertThat(timer.workerThread().isAlive()).isTrue();
            assertThat(timer.stats().scheduled()).isZero();
        }

        @Test
        void startFixesTheStartTimeAtTheTickersCurrentTime() {
            ManualTicker ticker = new ManualTicker(1_000);
            HashedWheelTimer timer = timers.track(
                    HashedWheelTimer.builder().ticker(ticker).tickDuration(TICK).build());
            timer.start();
            ticker.advance(Duration.ofMillis(30));
            RecordingTask task = new RecordingTask("t");

            timer.newTimeout(task, Duration.ofMillis(70)); // deadline 100 ms after start: a boundary

            ticker.advance(Duration.ofMillis(70).minusNanos(1));
            assertThat(task.runs()).isZero();
            ticker.advance(Duration.ofNanos(1));
            assertThat(task.runs()).isOne();
        }

        @Test
        void stopBeforeStartReturnsAnEmptySetAndShutsDown() {
            HashedWheelTimer timer = timers.track(HashedWheelTimer.builder().build());

            assertThat(timer.stop()).isEmpty();

            assertThat(timer.state()).isEqualTo(State.SHUTDOWN);
            assertThat(timer.workerThread().getState()).isEqualTo(Thread.State.NEW);
            assertThatThrownBy(timer::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("cannot be started once stopped");
            assertThatThrownBy(() -> timer.newTimeout(noop(), 1, SECONDS))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("cannot be started once stopped");
            assertThat(timer.pendingTimeouts()).isZero();
            assertThat(timer.stats().scheduled()).isZero();
        }

        @ParameterizedTest(name = "maxPendingTimeouts={0}")
        @ValueSource(longs = {0, 1})
        void newTimeoutAfterStopIsIllegalStateAndCountsStayExact(long maxPending) {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(
                    HashedWheelTimer.builder().ticker(ticker).tickDuration(TICK).maxPendingTimeouts(maxPending));
            timer.newTimeout(noop(), 1, TimeUnit.HOURS);
            assertThat(timer.stop()).hasSize(1);
            TimerStats before = timer.stats();

            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> timer.newTimeout(noop(), 1, SECONDS))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessage("cannot be started once stopped");
            }

            assertThat(timer.pendingTimeouts()).isZero();
            assertThat(timer.stats()).isEqualTo(before);
            assertThat(before.pending()).isZero();
            assertThat(before.scheduled()).isOne();
            assertThat(before.cancelled()).isOne();
            assertThat(before.rejected()).isZero();
            assertThat(before.state()).isEqualTo(State.SHUTDOWN);
        }

        @ParameterizedTest(name = "hierarchical={0}")
        @ValueSource(booleans = {true, false})
        void stopReturnsEveryTimeoutThatNeverRanEachCancelledWithItsCallback(boolean hierarchical) throws Exception {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, hierarchical);
            RecordingTask fired = new RecordingTask("fired");
            RecordingTask cancelledEarlier = new RecordingTask("cancelled");
            RecordingTask far = new RecordingTask("far");
            RecordingTask never = new RecordingTask("never");
            RecordingTask notTaken = new RecordingTask("notTaken");
            HoldingTask holding = new HoldingTask();

            timer.newTimeout(fired, Duration.ofMillis(100));
            timer.newTimeout(cancelledEarlier, Duration.ofHours(1)).cancel();
            Timeout farTimeout = timer.newTimeout(far, Duration.ofDays(3));
            Timeout neverTimeout = timer.newTimeout(never, Long.MAX_VALUE, NANOSECONDS);
            timer.newTimeout(holding, Duration.ofMillis(200));
            Future<?> advance = pool.submit(() -> ticker.advance(Duration.ofMillis(200)));
            holding.awaitHolding();
            // the worker is busy in a task: this one stays in the hand-off stack
            Timeout notTakenTimeout = timer.newTimeout(notTaken, Duration.ofSeconds(1));
            assertThat(timer.runtime.handOff.hasNewTimeouts()).isTrue();

            Future<Set<Timeout>> stop = pool.submit(timer::stop);
            await().atMost(Duration.ofSeconds(10)).until(() -> timer.state() == State.SHUTDOWN);
            Thread.sleep(100);
            assertThat(stop).as("stop() waits for the running task").isNotDone();
            holding.release();
            Set<Timeout> unprocessed = stop.get(10, SECONDS);
            advance.get(10, SECONDS);

            assertThat(unprocessed).containsExactlyInAnyOrder(farTimeout, neverTimeout, notTakenTimeout);
            for (Timeout timeout : unprocessed) {
                assertThat(timeout.isCancelled()).isTrue();
                assertThat(timeout.isExpired()).isFalse();
                assertThat(timeout.cancel()).isFalse();
            }
            for (RecordingTask task : List.of(far, never, notTaken)) {
                assertThat(task.cancels()).as(task + " cancelled once").isOne();
                assertThat(task.runs()).isZero();
                assertThat(task.cancelledFlagSeenInCallback).isTrue();
                assertThat(task.cancelledOn).as("stop() cancels on the worker").isSameAs(timer.workerThread());
            }
            assertThat(fired.runs()).isOne();
            assertThat(fired.cancels()).isZero();
            assertThat(cancelledEarlier.cancels()).isOne();
            TimerStats stats = timer.stats();
            assertThat(stats.pending()).isZero();
            assertThat(stats.scheduled()).isEqualTo(6);
            assertThat(stats.expired()).isEqualTo(2);
            assertThat(stats.cancelled()).isEqualTo(4);
            assertThat(timer.pendingTimeouts()).isZero();
            assertThat(timer.upcoming(10)).isEmpty();
            assertThat(timer.workerThread().isAlive()).isFalse();
        }

        @Test
        void secondStopReturnsAnEmptySet() {
            HashedWheelTimer timer = manualTimer(new ManualTicker(), true);
            timer.newTimeout(noop(), Duration.ofMinutes(1));

            assertThat(timer.stop()).hasSize(1);
            assertThat(timer.stop()).isEmpty();
            assertThat(timer.state()).isEqualTo(State.SHUTDOWN);
        }

        @Test
        void stopFromATaskOnTheWorkerThreadIsIllegalStateAndTheTimerGoesOn() {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, true);
            AtomicReference<Throwable> caught = new AtomicReference<>();
            RecordingTask later = new RecordingTask("later");

            timer.newTimeout(
                    t -> {
                        try {
                            timer.stop();
                        } catch (Throwable e) {
                            caught.set(e);
                        }
                    },
                    Duration.ofMillis(100));
            timer.newTimeout(later, Duration.ofMillis(200));
            ticker.advance(Duration.ofMillis(200));

            assertThat(caught.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("stop()");
            assertThat(timer.state()).isEqualTo(State.STARTED);
            assertThat(later.runs()).isOne();
            assertThat(timer.stats().failed()).isZero();
        }

        @Test
        void cancelledCallbackAndToStringThatThrowDoNotBreakStop() {
            HashedWheelTimer timer = manualTimer(new ManualTicker(), true);
            TimerTask nasty = new TimerTask() {
                @Override
                public void run(Timeout timeout) {}

                @Override
                public void cancelled(Timeout timeout) {
                    throw new IllegalStateException("callback failed");
                }

                @Override
                public String toString() {
                    throw new NullPointerException("toString failed");
                }
            };
            Timeout first = timer.newTimeout(nasty, Duration.ofHours(1));
            RecordingTask other = new RecordingTask("other");
            Timeout second = timer.newTimeout(other, Duration.ofHours(2));
            timer.newTimeout(nasty, Duration.ofHours(3));

            assertThatCode(first::cancel).doesNotThrowAnyException();
            Set<Timeout> unprocessed = timer.stop();

            assertThat(unprocessed).hasSize(2).contains(second);
            assertThat(other.cancels()).isOne();
            assertThat(timer.pendingTimeouts()).isZero();
        }

        @Test
        void tickerThatFailsOnTheWorkerDoesNotHangStart() throws Exception {
            Ticker broken = () -> {
                throw new IllegalStateException("clock broken");
            };
            // not tracked: stop() would wait for the dead worker as long as start() does
            HashedWheelTimer timer = HashedWheelTimer.builder().ticker(broken).build();

            Future<?> start = pool.submit(timer::start);

            assertThatCode(() -> {
                        try {
                            start.get(10, SECONDS);
                        } catch (java.util.concurrent.ExecutionException expected) {
                            // failing is fine; hanging is not
                        }
                    })
                    .doesNotThrowAnyException();
        }

        @Test
        void noFurtherTaskStartsOnceStopWasCalled() throws Exception {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, true);
            HoldingTask holding = new HoldingTask();
            timer.newTimeout(holding, Duration.ofMillis(100));
            RecordingTask second = new RecordingTask("200 ms");
            RecordingTask third = new RecordingTask("300 ms");
            timer.newTimeout(second, Duration.ofMillis(200));
            timer.newTimeout(third, Duration.ofMillis(300));
            Future<?> advance = pool.submit(() -> ticker.advance(Duration.ofMillis(300)));
            holding.awaitHolding();

            Future<Set<Timeout>> stop = pool.submit(timer::stop);
            await().atMost(Duration.ofSeconds(10)).until(() -> timer.state() == State.SHUTDOWN);
            holding.release();
            Set<Timeout> unprocessed = stop.get(10, SECONDS);
            advance.get(10, SECONDS);

            assertThat(second.runs() + third.runs()).isZero();
            assertThat(unprocessed).hasSize(2);
        }
    }

    /** When a timeout runs: at the first tick boundary at or after its deadline, never early, in both layouts. */
    @Nested
    class FiringAtTickBoundaries {

        @ParameterizedTest(name = "hierarchical={0}")
        @ValueSource(booleans = {true, false})
        void zeroOrNegativeDelayRunsOnTheNextTick(boolean hierarchical) {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, hierarchical);
            ticker.advance(Duration.ofMillis(50));
            RecordingTask zero = new RecordingTask("zero");
            RecordingTask negative = new RecordingTask("negative");
            RecordingTask veryNegative = new RecordingTask("veryNegative");
            RecordingTask negativeDuration = new RecordingTask("negativeDuration");

            timer.newTimeout(zero, 0, MILLISECONDS);
            timer.newTimeout(negative, -5, SECONDS);
            timer.newTimeout(veryNegative, Long.MIN_VALUE, NANOSECONDS);
            timer.newTimeout(negativeDuration, Duration.ofSeconds(Long.MIN_VALUE)); // beyond long nanos

            ticker.advance(Duration.ofMillis(50).minusNanos(1));
            assertThat(zero.runs() + negative.runs() + veryNegative.runs() + negativeDuration.runs())
                    .isZero();
            ticker.advance(Duration.ofNanos(1)); // 100 ms: the next boundary
            assertThat(List.of(zero.runs(), negative.runs(), veryNegative.runs(), negativeDuration.runs()))
                    .containsOnly(1);
        }

        @ParameterizedTest(name = "hierarchical={0}")
        @ValueSource(booleans = {true, false})
        void zeroDelayScheduledExactlyOnABoundaryRunsAtTheFollowingBoundary(boolean hierarchical) {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, hierarchical);
            ticker.advance(Duration.ofMillis(100));
            RecordingTask task = new RecordingTask("t");

            timer.newTimeout(task, 0, MILLISECONDS);
            ticker.advance(Duration.ofMillis(100).minusNanos(1));
            assertThat(task.runs()).isZero();
            ticker.advance(Duration.ofNanos(1));
            assertThat(task.runs()).isOne();
        }

        /**
         * A timeout fires at the first tick boundary at or after its deadline (boundaries every
         * 100 ms from the start): never before it, and at the boundary itself, not a tick later,
         * when the deadline falls on one, also when it was scheduled between two boundaries.
         */
        @ParameterizedTest(name = "hierarchical={0}: scheduled at {1} ms for {2} ms, fires at {3} ms")
        @CsvSource({
            "true, 0, 100, 100",
            "false, 0, 100, 100",
            "true, 0, 300, 300",
            "false, 0, 300, 300",
            "true, 50, 150, 200",
            "false, 50, 150, 200",
            "true, 0, 250, 300",
            "false, 0, 250, 300"
        })
        void firesAtTheFirstTickBoundaryAtOrAfterItsDeadline(
                boolean hierarchical, long scheduledAtMillis, long delayMillis, long firesAtMillis) {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, hierarchical);
            ticker.advance(Duration.ofMillis(scheduledAtMillis));
            RecordingTask task = new RecordingTask("t", ticker);

            Timeout timeout = timer.newTimeout(task, Duration.ofMillis(delayMillis));

            if (scheduledAtMillis + delayMillis < firesAtMillis) {
                ticker.advance(Duration.ofMillis(delayMillis)); // the deadline, between two boundaries
                assertThat(task.runs()).as("at its deadline").isZero();
                assertThat(timeout.isExpired()).isFalse();
            }
            ticker.advance(Duration.ofNanos(Duration.ofMillis(firesAtMillis).toNanos() - ticker.nanoTime() - 1));
            assertThat(task.runs()).as("a nanosecond before its boundary").isZero();
            assertThat(timeout.isExpired()).isFalse();
            ticker.advance(Duration.ofNanos(1));
            assertThat(task.runs()).as("at its boundary").isOne();
            assertThat(task.ranAtNanos)
                    .isEqualTo(Duration.ofMillis(firesAtMillis).toNanos());
            assertThat(timeout.isExpired()).isTrue();
            assertThat(timeout.isCancelled()).isFalse();
            assertThat(timer.stats().ticks()).isEqualTo(firesAtMillis / 100);
        }

        @ParameterizedTest(name = "hierarchical={0}")
        @ValueSource(booleans = {true, false})
        void farFutureTimeoutsManyRotationsAwayFireExactlyAtTheirBoundary(boolean hierarchical) {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(HashedWheelTimer.builder()
                    .ticker(ticker)
                    .tickDuration(TICK)
                    .ticksPerWheel(4)
                    .hierarchical(hierarchical));
            long[] ticks = {5, 17, 64, 65, 1_000, 4_097, 123_456};
            List<RecordingTask> tasks = new ArrayList<>();
            for (long tick : ticks) {
                RecordingTask task = new RecordingTask("tick " + tick, ticker);
                tasks.add(task);
                timer.newTimeout(task, tick * TICK_NANOS - 1, NANOSECONDS); // 1 ns before the boundary
            }

            long now = 0;
            for (int i = 0; i < ticks.length; i++) {
                long boundary = ticks[i] * TICK_NANOS;
                ticker.advance(boundary - 1 - now, NANOSECONDS);
                assertThat(tasks.get(i).runs()).as(tasks.get(i) + " 1 ns early").isZero();
                ticker.advance(1, NANOSECONDS);
                now = boundary;
                assertThat(tasks.get(i).runs()).as(tasks.get(i).toString()).isOne();
                assertThat(tasks.get(i).ranAtNanos).isEqualTo(boundary);
            }
        }

        static Stream<Arguments> layoutsAndWheelSizes() {
            return Stream.of(true, false)
                    .flatMap(h -> Stream.of(1, 2, 4, 64, 512).map(w -> Arguments.of(h, w)));
        }

        /** One scheduled timeout of {@link #randomTimeoutsFireAtTheFirstTickBoundaryAtOrAfterTheirDeadline}. */
        private static final class Expected {
            final RecordingTask task;
            final long deadlineNanos;
            final long boundaryNanos;
            Timeout timeout;
            boolean cancelled;

            Expected(RecordingTask task, long deadline, long tick) {
                this.task = task;
                this.deadlineNanos = deadline;
                this.boundaryNanos = (deadline + tick - 1) / tick * tick;
            }
        }

        /**
         * Random deadlines (next tick, on, just before and just after boundaries, many rotations and
         * levels away), random cancels and random steps of time (to, just before, just past and far
         * beyond boundaries): after every step exactly the due timeouts have run, in the step that
         * reached their boundary, and upcoming lists exactly the others.
         */
        @ParameterizedTest(name = "hierarchical={0}, ticksPerWheel={1}")
        @MethodSource("layoutsAndWheelSizes")
        void randomTimeoutsFireAtTheFirstTickBoundaryAtOrAfterTheirDeadline(boolean hierarchical, int wheel) {
            long tick = 1_000_000;
            Random random = new Random(31L * wheel + (hierarchical ? 1 : 0));
            long start = random.nextLong();
            ManualTicker ticker = new ManualTicker(start);
            HashedWheelTimer timer = manualTimer(HashedWheelTimer.builder()
                    .ticker(ticker)
                    .tickDuration(Duration.ofNanos(tick))
                    .ticksPerWheel(wheel)
                    .hierarchical(hierarchical));
            List<Expected> all = new ArrayList<>();
            long elapsed = 0;

            for (int round = 0; round < 150; round++) {
                for (int n = random.nextInt(4); n > 0; n--) {
                    long delay = randomDelay(random, elapsed, tick, wheel);
                    long deadline = delay <= 0 ? elapsed + 1 : elapsed + delay;
                    Expected e = new Expected(new RecordingTask("t" + all.size(), ticker), deadline, tick);
                    e.timeout = timer.newTimeout(e.task, delay, NANOSECONDS);
                    all.add(e);
                }
                if (!all.isEmpty() && random.nextInt(4) == 0) {
                    Expected e = all.get(random.nextInt(all.size()));
                    boolean cancellable = !e.cancelled && e.task.runs() == 0;
                    assertThat(e.timeout.cancel()).as("cancel of " + e.task).isEqualTo(cancellable);
                    e.cancelled |= cancellable;
                }

                long step = randomStep(random, elapsed, tick, wheel, all);
                ticker.advance(step, NANOSECONDS);
                elapsed += step;

                for (Expected e : all) {
                    boolean due = !e.cancelled && e.boundaryNanos <= elapsed;
                    assertThat(e.task.runs())
                            .as(
                                    "%s (deadline %d, boundary %d) at %d",
                                    e.task, e.deadlineNanos, e.boundaryNanos, elapsed)
                            .isEqualTo(due ? 1 : 0);
                    if (due && e.boundaryNanos > elapsed - step) { // its boundary was reached in this step
                        assertThat(e.task.ranAtNanos - start)
                                .as("%s ran in the step that reached it", e.task)
                                .isEqualTo(elapsed);
                    }
                }
                long finalElapsed = elapsed;
                List<Expected> pending = all.stream()
                        .filter(e -> !e.cancelled && e.boundaryNanos > finalElapsed)
                        .sorted(Comparator.comparingLong(e -> e.deadlineNanos))
                        .collect(Collectors.toList());
                List<TimeoutInfo> upcoming = timer.upcoming(1_000);
                assertThat(upcoming)
                        .extracting(TimeoutInfo::remaining)
                        .containsExactlyElementsOf(pending.stream()
                                .map(e -> Duration.ofNanos(Math.max(e.deadlineNanos - finalElapsed, 0)))
                                .collect(Collectors.toList()));
                assertThat(upcoming)
                        .extracting(TimeoutInfo::task)
                        .containsExactlyInAnyOrderElementsOf(
                                pending.stream().map(e -> e.task.toString()).collect(Collectors.toList()));
                assertThat(timer.pendingTimeouts()).isEqualTo(pending.size());
            }

            long last = all.stream()
                    .filter(e -> !e.cancelled)
                    .mapToLong(e -> e.boundaryNanos)
                    .max()
                    .orElse(elapsed);
            ticker.advance(Math.max(last - elapsed, 0), NANOSECONDS);
            long ran = all.stream().filter(e -> e.task.runs() == 1).count();
            long cancelled = all.stream().filter(e -> e.cancelled).count();
            assertThat(ran + cancelled).isEqualTo(all.size());
            assertThat(all)
                    .allSatisfy(
                            e -> assertThat(e.task.runs() + e.task.cancels()).isOne());
            TimerStats stats = timer.stats();
            assertThat(stats.scheduled()).isEqualTo(all.size());
            assertThat(stats.expired()).isEqualTo(ran);
            assertThat(stats.cancelled()).isEqualTo(cancelled);
            assertThat(stats.pending()).isZero();
            assertThat(timer.isHierarchical()).isEqualTo(hierarchical && wheel > 1);
        }

        private static long randomDelay(Random random, long elapsed, long tick, int wheel) {
            long nextBoundaryAfter = (elapsed / tick + 1 + random.nextInt(3 * wheel + 3)) * tick;
            switch (random.nextInt(8)) {
                case 0:
                    return -random.nextInt(2_000_000); // zero or negative: next tick
                case 1:
                    return 1 + random.nextLong(3 * tick);
                case 2:
                    return nextBoundaryAfter - elapsed; // exactly on a boundary
                case 3:
                    return nextBoundaryAfter - elapsed + 1;
                case 4:
                    return nextBoundaryAfter - elapsed - 1;
                case 5:
                    return 1 + random.nextLong(tick * wheel * 8 + tick);
                case 6:
                    return 1
                            + random.nextLong(tick * Math.max(Math.min((long) wheel * wheel * wheel, 1L << 24), 1_000));
                default:
                    return 1 + random.nextLong(tick * (1L << 30)); // up to ~12 days of 1 ms ticks
            }
        }

        private static long randomStep(Random random, long elapsed, long tick, int wheel, List<Expected> all) {
            long[] boundaries = all.stream()
                    .filter(e -> !e.cancelled && e.boundaryNanos > elapsed)
                    .mapToLong(e -> e.boundaryNanos)
                    .sorted()
                    .toArray();
            switch (random.nextInt(7)) {
                case 0:
                    return 0;
                case 1:
                    return 1 + random.nextLong(2 * tick);
                case 2:
                    return boundaries.length == 0 ? tick : boundaries[0] - elapsed;
                case 3:
                    return boundaries.length == 0 ? tick - 1 : boundaries[0] - elapsed - 1;
                case 4:
                    return boundaries.length == 0
                            ? 3 * tick
                            : boundaries[random.nextInt(boundaries.length)] - elapsed - random.nextInt(2);
                case 5:
                    return 1 + random.nextLong(tick * wheel * 4 + tick);
                default:
                    return 1 + random.nextLong(tick * 5);
            }
        }

        @ParameterizedTest(name = "hierarchical={0}")
        @ValueSource(booleans = {true, false})
        void delayThatOverflowsNeverRunsAndCanStillBeCancelled(boolean hierarchical) {
            ManualTicker ticker = new ManualTicker(Long.MAX_VALUE - 5);
            HashedWheelTimer timer = manualTimer(HashedWheelTimer.builder()
                    .ticker(ticker)
                    .tickDuration(Duration.ofMillis(1))
                    .hierarchical(hierarchical));
            ticker.advance(Duration.ofMillis(10));
            RecordingTask maxNanos = new RecordingTask("maxNanos");
            RecordingTask maxDays = new RecordingTask("maxDays");
            RecordingTask hugeDuration = new RecordingTask("hugeDuration");

            Timeout a = timer.newTimeout(maxNanos, Long.MAX_VALUE, NANOSECONDS);
            Timeout b = timer.newTimeout(maxDays, Long.MAX_VALUE, DAYS);
            Timeout c = timer.newTimeout(hugeDuration, Duration.ofSeconds(Long.MAX_VALUE)); // beyond long nanos

            assertThat(timer.upcoming(10))
                    .extracting(TimeoutInfo::remaining)
                    .containsOnly(Duration.ofNanos(
                            Long.MAX_VALUE - Duration.ofMillis(10).toNanos()));
            ticker.advance(Duration.ofDays(365L * 250));
            ticker.advance(Duration.ofDays(365L * 40));
            assertThat(maxNanos.runs() + maxDays.runs() + hugeDuration.runs()).isZero();
            assertThat(timer.pendingTimeouts()).isEqualTo(3);

            assertThat(a.cancel()).isTrue();
            assertThat(b.cancel()).isTrue();
            assertThat(c.cancel()).isTrue();
            assertThat(List.of(maxNanos.cancels(), maxDays.cancels(), hugeDuration.cancels()))
                    .containsOnly(1);
            assertThat(timer.pendingTimeouts()).isZero();
            assertThat(timer.state()).isEqualTo(State.STARTED);
        }

        @ParameterizedTest(name = "hierarchical={0}")
        @ValueSource(booleans = {true, false})
        void durationOverloadSchedulesLikeTheUnitOverload(boolean hierarchical) {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, hierarchical);
            RecordingTask viaDuration = new RecordingTask("duration", ticker);
            RecordingTask viaUnit = new RecordingTask("unit", ticker);

            Timeout d = timer.newTimeout(viaDuration, Duration.ofMillis(1_234));
            Timeout u = timer.newTimeout(viaUnit, 1_234, MILLISECONDS);
            assertThat(d.task()).isSameAs(viaDuration);
            assertThat(d.timer()).isSameAs(timer);
            assertThat(u.timer()).isSameAs(timer);

            ticker.advance(Duration.ofMillis(1_299));
            assertThat(viaDuration.runs() + viaUnit.runs()).isZero();
            ticker.advance(Duration.ofMillis(1));
            assertThat(viaDuration.runs()).isOne();
            assertThat(viaUnit.runs()).isOne();
            assertThat(viaDuration.ranAtNanos)
                    .isEqualTo(viaUnit.ranAtNanos)
                    .isEqualTo(Duration.ofMillis(1_300).toNanos());
        }

        @Test
        void realTimeTimeoutsRunNotBeforeTheirDelayAndAtMostAboutATickLate() throws Exception {
            HashedWheelTimer timer = timers.track(HashedWheelTimer.builder()
                    .tickDuration(Duration.ofMillis(10))
                    .build());
            timer.start();
            long[] delaysMillis = {0, 1, 10, 15, 50, 100, 230, 300};
            long[] scheduledAt = new long[delaysMillis.length];
            long[] ranAt = new long[delaysMillis.length];
            CountDownLatch all = new CountDownLatch(delaysMillis.length);
            for (int i = 0; i < delaysMillis.length; i++) {
                int index = i;
                scheduledAt[i] = System.nanoTime();
                timer.newTimeout(
                        t -> {
                            ranAt[index] = System.nanoTime();
                            all.countDown();
                        },
                        delaysMillis[i],
                        MILLISECONDS);
            }

            assertThat(all.await(20, SECONDS)).isTrue();
            for (int i = 0; i < delaysMillis.length; i++) {
                long took = ranAt[i] - scheduledAt[i];
                assertThat(took)
                        .as("delay %d ms: never early", delaysMillis[i])
                        .isGreaterThanOrEqualTo(MILLISECONDS.toNanos(delaysMillis[i]));
                // a tick late at most, plus a generous allowance for a noisy 2-core CI machine
                assertThat(took)
                        .as("delay %d ms: about a tick late at most", delaysMillis[i])
                        .isLessThan(MILLISECONDS.toNanos(delaysMillis[i] + 10 + 1_000));
            }
        }

        /** Delegates to a {@link ManualTicker}; once armed, holds the worker at its next clock reading. */
        private static final class GatedTicker implements Ticker {
            final ManualTicker time;
            final CountDownLatch reached = new CountDownLatch(1);
            final CountDownLatch release = new CountDownLatch(1);
            volatile Thread gated;

            GatedTicker(ManualTicker time) {
                this.time = time;
            }

            @Override
            public long nanoTime() {
                if (Thread.currentThread() == gated) {
                    gated = null;
                    reached.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return time.nanoTime();
            }

            @Override
            public void sleepUntil(long deadlineNanos) {
                time.sleepUntil(deadlineNanos);
            }

            @Override
            public void sleep() {
                time.sleep();
            }

            @Override
            public void wake(Thread worker) {
                time.wake(worker);
            }
        }

        /**
         * Each round the worker reads the clock, takes the hand-offs, then advances the wheel no further
         * than the time it read. A timeout handed off while the worker is inside that clock read, whose
         * boundary the clock then passes, still runs at its boundary, in the advance that reaches it, not
         * a tick late. The ticker here holds the worker inside its clock read, to make the window certain.
         */
        @Test
        void timeoutHandedOffWhileTheWorkerIsAwakeRunsInTheAdvanceThatReachesItsBoundary() throws Exception {
            ManualTicker time = new ManualTicker();
            GatedTicker ticker = new GatedTicker(time);
            HashedWheelTimer timer = timers.track(
                    HashedWheelTimer.builder().ticker(ticker).tickDuration(TICK).build());
            timer.start();
            time.advance(Duration.ZERO); // the worker sleeps, with nothing to do
            ticker.gated = timer.workerThread();

            timer.newTimeout(noop(), Duration.ofHours(1)); // wakes the worker; it takes this one, then reads the clock
            assertThat(ticker.reached.await(10, SECONDS)).isTrue();
            RecordingTask task = new RecordingTask("due at 100 ms", time);
            timer.newTimeout(task, Duration.ofMillis(100)); // handed off while the worker is awake
            Future<?> advance = pool.submit(() -> time.advance(Duration.ofMillis(100)));
            await().atMost(Duration.ofSeconds(10)).until(() -> time.nanoTime() == TICK_NANOS);
            ticker.release.countDown();
            advance.get(10, SECONDS);

            assertThat(task.runs())
                    .as("ran within the advance that reached its boundary")
                    .isOne();
            assertThat(task.ranAtNanos).isEqualTo(TICK_NANOS);
        }
    }

    /** cancel(): once, never after expiry, releasing the task, and the cancelled() callback. */
    @Nested
    class Cancellation {

        @ParameterizedTest(name = "hierarchical={0}")
        @ValueSource(booleans = {true, false})
        void cancelReturnsTrueOnceThenFalseAndTheTaskNeverRuns(boolean hierarchical) {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, hierarchical);
            RecordingTask task = new RecordingTask("t");
            Timeout timeout = timer.newTimeout(task, Duration.ofMillis(200));
            ticker.advance(Duration.ofMillis(100));

            assertThat(timeout.isCancelled()).isFalse();
            assertThat(timeout.cancel()).isTrue();
            assertThat(timeout.cancel()).isFalse();
            assertThat(timeout.isCancelled()).isTrue();
            assertThat(timeout.isExpired()).isFalse();
            assertThat(task.cancels()).isOne();
            assertThat(task.cancelledFlagSeenInCallback).isTrue();
            assertThat(task.cancelledOn).isSameAs(Thread.currentThread());

            ticker.advance(Duration.ofSeconds(1));
            assertThat(task.runs()).isZero();
            assertThat(task.cancels()).isOne();
            assertThat(timeout.cancel()).isFalse();
            TimerStats stats = timer.stats();
            assertThat(stats.cancelled()).isOne();
            assertThat(stats.expired()).isZero();
            assertThat(stats.pending()).isZero();
            assertThat(timer.stop()).isEmpty();
            assertThat(task.cancels()).isOne();
        }

        @ParameterizedTest(name = "hierarchical={0}")
        @ValueSource(booleans = {true, false})
        void cancelAfterExpiryReturnsFalse(boolean hierarchical) {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, hierarchical);
            RecordingTask task = new RecordingTask("t");
            Timeout timeout = timer.newTimeout(task, Duration.ofMillis(100));
            assertThat(timeout.isExpired()).isFalse();

            ticker.advance(Duration.ofMillis(100));

            assertThat(timeout.isExpired()).isTrue();
            assertThat(timeout.cancel()).isFalse();
            assertThat(timeout.isCancelled()).isFalse();
            assertThat(task.cancels()).isZero();
            assertThat(task.runs()).isOne();
            assertThat(timer.stats().cancelled()).isZero();
        }

        @Test
        void timeoutCancelledBeforeTheWorkerTookItHandsNothingToTheWorker() throws Exception {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, true);
            HoldingTask holding = new HoldingTask();
            timer.newTimeout(holding, Duration.ofMillis(100));
            Future<?> advance = pool.submit(() -> ticker.advance(Duration.ofMillis(100)));
            holding.awaitHolding();
            RecordingTask task = new RecordingTask("t");

            Timeout older = timer.newTimeout(new RecordingTask("older"), Duration.ofHours(1));
            Timeout timeout = timer.newTimeout(task, Duration.ofHours(1));
            assertThat(timer.runtime.handOff.hasNewTimeouts())
                    .as("not taken yet")
                    .isTrue();
            assertThat(timeout.cancel()).isTrue();

            assertThat(timer.runtime.handOff.cancelledTimeouts.isEmpty())
                    .as("nothing for the worker to unlink")
                    .isTrue();
            assertThat(task.cancels()).isOne();
            // The newest of this thread's stripe was taken back; the older one waits for the worker,
            // which drops it, cancelled, when it takes the stripe; once it is cancelled too, nothing waits.
            assertThat(timer.runtime.handOff.hasNewTimeouts())
                    .as("the older one waits")
                    .isTrue();
            assertThat(older.cancel()).isTrue();
            assertThat(timer.runtime.handOff.hasNewTimeouts())
                    .as("both taken back")
                    .isFalse();
            holding.release();
            advance.get(10, SECONDS);
            ticker.advance(Duration.ofHours(2));
            assertThat(task.runs()).isZero();
            assertThat(timer.pendingTimeouts()).isZero();
            assertThat(timer.stats().cancelled()).isEqualTo(2);
            assertThat(timer.upcoming(10)).isEmpty();
        }

        @ParameterizedTest(name = "hierarchical={0}")
        @ValueSource(booleans = {true, false})
        void cancelledTimeoutIsUnlinkedAndItsTaskReleasedWithinOneTick(boolean hierarchical) {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, hierarchical);

            WeakReference<TimerTask> task = scheduleTakeAndCancel(timer, ticker);
            ticker.advance(TICK);

            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        System.gc();
                        return task.get() == null;
                    });
            assertThat(timer.pendingTimeouts()).isZero();
        }

        /** Returns only a weak reference, so that nothing in the test keeps the task alive. */
        private static WeakReference<TimerTask> scheduleTakeAndCancel(HashedWheelTimer timer, ManualTicker ticker) {
            TimerTask task = new RecordingTask("released");
            Timeout timeout = timer.newTimeout(task, Duration.ofHours(1));
            ticker.advance(Duration.ZERO); // wakes the worker, which takes it into the wheel
            await().atMost(Duration.ofSeconds(10)).until(() -> !timer.runtime.handOff.hasNewTimeouts());
            assertThat(timeout.cancel()).isTrue();
            return new WeakReference<>(task);
        }

        @Test
        void exceptionFromTheCancelledCallbackIsLoggedAndIgnored() {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, true);
            TimerTask task = new TimerTask() {
                @Override
                public void run(Timeout timeout) {}

                @Override
                public void cancelled(Timeout timeout) {
                    throw new IllegalStateException("callback failed");
                }
            };
            Timeout timeout = timer.newTimeout(task, Duration.ofSeconds(1));

            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                assertThat(timeout.cancel()).isTrue();
                assertThat(log.records(Level.WARNING)).hasSize(1);
                assertThat(log.records(Level.WARNING).get(0).getThrown()).hasMessage("callback failed");
            }
            assertThat(timeout.isCancelled()).isTrue();
            assertThat(timer.stats().cancelled()).isOne();
            assertThat(timer.stats().failed()).isZero();
        }
    }

    /** Tasks that throw, executors that refuse, and which thread a task runs on. */
    @Nested
    class TaskFailuresAndExecutors {

        @Test
        void taskThatThrowsIsLoggedAndCountedAndTheWorkerGoesOn() {
            // Both are due at the same tick and run in the order scheduled.
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, true);
            RecordingTask later = new RecordingTask("later");
            Timeout throwing = timer.newTimeout(
                    t -> {
                        throw new Exception("task failed");
                    },
                    Duration.ofMillis(100));
            timer.newTimeout(
                    t -> {
                        throw new AssertionError("an Error too");
                    },
                    Duration.ofMillis(100));
            timer.newTimeout(later, Duration.ofMillis(200));

            List<LogRecord> warnings;
            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                ticker.advance(Duration.ofMillis(100));
                warnings = log.records(Level.WARNING);
            }
            ticker.advance(Duration.ofMillis(100));

            // The first failure is logged with its stack trace; the second is only counted (summarised later).
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0).getThrown()).hasMessage("task failed");
            assertThat(throwing.isExpired()).isTrue();
            assertThat(later.runs()).isOne();
            assertThat(timer.state()).isEqualTo(State.STARTED);
            TimerStats stats = timer.stats();
            assertThat(stats.failed()).isEqualTo(2);
            assertThat(stats.expired()).isEqualTo(3);
            assertThat(stats.pending()).isZero();
        }

        @Test
        void executorThatRefusesIsLoggedAndCountedAsFailedAndTheWorkerGoesOn() {
            ManualTicker ticker = new ManualTicker();
            AtomicInteger calls = new AtomicInteger();
            Executor refusesFirst = command -> {
                if (calls.incrementAndGet() == 1) {
                    throw new RejectedExecutionException("queue full");
                }
                command.run();
            };
            HashedWheelTimer timer = manualTimer(
                    HashedWheelTimer.builder().ticker(ticker).tickDuration(TICK).taskExecutor(refusesFirst));
            RecordingTask refused = new RecordingTask("refused");
            RecordingTask accepted = new RecordingTask("accepted");
            Timeout refusedTimeout = timer.newTimeout(refused, Duration.ofMillis(100));
            timer.newTimeout(accepted, Duration.ofMillis(200));

            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                ticker.advance(Duration.ofMillis(200));

                assertThat(log.records(Level.WARNING)).hasSize(1);
                assertThat(log.records(Level.WARNING).get(0).getThrown())
                        .isInstanceOf(RejectedExecutionException.class)
                        .hasMessage("queue full");
                assertThat(log.messages(Level.WARNING).get(0)).contains("refused");
            }
            assertThat(refused.runs()).isZero();
            assertThat(refusedTimeout.isExpired()).isTrue();
            assertThat(accepted.runs()).isOne();
            TimerStats stats = timer.stats();
            assertThat(stats.failed()).isOne();
            assertThat(stats.expired()).isEqualTo(2);
            assertThat(stats.pending()).isZero();
            assertThat(timer.state()).isEqualTo(State.STARTED);
        }

        @Test
        void tasksRunOnTheGivenExecutorsThread() throws Exception {
            ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "task-executor"));
            try {
                ManualTicker ticker = new ManualTicker();
                HashedWheelTimer timer = manualTimer(HashedWheelTimer.builder()
                        .ticker(ticker)
                        .tickDuration(TICK)
                        .taskExecutor(executor));
                RecordingTask task = new RecordingTask("t");
                Timeout timeout = timer.newTimeout(task, Duration.ofMillis(100));

                ticker.advance(Duration.ofMillis(100));

                assertThat(task.ran.await(10, SECONDS)).isTrue();
                assertThat(task.ranOn.getName()).isEqualTo("task-executor");
                assertThat(task.ranOn).isNotSameAs(timer.workerThread());
                assertThat(timeout.isExpired()).isTrue();
            } finally {
                executor.shutdownNow();
            }
        }

        @Test
        void tasksRunOnTheWorkerThreadByDefault() {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, true);
            RecordingTask task = new RecordingTask("t");
            timer.newTimeout(task, Duration.ofMillis(100));

            ticker.advance(Duration.ofMillis(100));

            assertThat(task.ranOn).isSameAs(timer.workerThread());
            assertThat(task.ranOn.getName()).isEqualTo("manual-timer");
        }

        @Test
        void taskWhoseRunAndToStringThrowDoesNotKillTheWorker() {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, true);
            RecordingTask later = new RecordingTask("later");
            timer.newTimeout(
                    new TimerTask() {
                        @Override
                        public void run(Timeout timeout) {
                            throw new IllegalStateException("task failed");
                        }

                        @Override
                        public String toString() {
                            throw new NullPointerException("toString failed");
                        }
                    },
                    Duration.ofMillis(100));
            Timeout laterTimeout = timer.newTimeout(later, Duration.ofMillis(200));

            ticker.advance(Duration.ofMillis(200));

            assertThat(timer.state()).isEqualTo(State.STARTED);
            assertThat(later.runs()).isOne();
            assertThat(laterTimeout.isCancelled()).isFalse();
            assertThat(timer.stats().failed()).isOne();
        }
    }

    /** The limit on pending timeouts: Netty's refusal, and the room a finished or refused timeout makes. */
    @Nested
    class MaxPendingTimeouts {

        @Test
        void newTimeoutPastMaxPendingTimeoutsIsRejectedWithNettysMessage() {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(
                    HashedWheelTimer.builder().ticker(ticker).tickDuration(TICK).maxPendingTimeouts(1));
            RecordingTask first = new RecordingTask("first");
            timer.newTimeout(first, Duration.ofMillis(100));

            assertThatThrownBy(() -> timer.newTimeout(noop(), Duration.ofMillis(100)))
                    .isExactlyInstanceOf(RejectedExecutionException.class)
                    .hasMessage(NETTY_MESSAGE);
            assertThat(timer.stats().rejected()).isOne();
            assertThat(timer.stats().scheduled()).isOne();
            assertThat(timer.pendingTimeouts()).isOne();

            ticker.advance(Duration.ofMillis(100)); // the pending one fires: room again
            assertThat(first.runs()).isOne();
            Timeout second = timer.newTimeout(noop(), Duration.ofHours(1));
            assertThatThrownBy(() -> timer.newTimeout(noop(), 1, SECONDS))
                    .isInstanceOf(RejectedExecutionException.class);

            assertThat(second.cancel()).isTrue(); // cancelled: room again
            Timeout third = timer.newTimeout(noop(), Duration.ofHours(1));
            assertThat(third.isCancelled()).isFalse();

            TimerStats stats = timer.stats();
            assertThat(stats.rejected()).isEqualTo(2);
            assertThat(stats.scheduled()).isEqualTo(3);
            assertThat(stats.pending()).isOne();
        }

        @Test
        void timeoutRefusedByTheExecutorMakesRoomForANewOne() {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(HashedWheelTimer.builder()
                    .ticker(ticker)
                    .tickDuration(TICK)
                    .maxPendingTimeouts(1)
                    .taskExecutor(command -> {
                        throw new RejectedExecutionException("no");
                    }));
            timer.newTimeout(noop(), Duration.ofMillis(100));
            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                ticker.advance(Duration.ofMillis(100));
                assertThat(log.records(Level.WARNING)).hasSize(1);
            }

            assertThatCode(() -> timer.newTimeout(noop(), Duration.ofMillis(100)))
                    .doesNotThrowAnyException();
            assertThat(timer.stats().failed()).isOne();
        }

        @Test
        void nonPositiveMaxPendingTimeoutsMeansNoLimit() {
            HashedWheelTimer timer = manualTimer(
                    HashedWheelTimer.builder().ticker(new ManualTicker()).maxPendingTimeouts(-5));
            for (int i = 0; i < 1_000; i++) {
                timer.newTimeout(noop(), Duration.ofHours(1));
            }
            assertThat(timer.maxPendingTimeouts()).isEqualTo(-5);
            assertThat(timer.pendingTimeouts()).isEqualTo(1_000);
            assertThat(timer.stats().rejected()).isZero();
        }
    }

    /** stats() and its counts at quiet moments, and the tick lag. */
    @Nested
    class Stats {

        @ParameterizedTest(name = "hierarchical={0}")
        @ValueSource(booleans = {true, false})
        void statsAreExactAtQuietMoments(boolean hierarchical) {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = timers.track(HashedWheelTimer.builder()
                    .ticker(ticker)
                    .tickDuration(TICK)
                    .hierarchical(hierarchical)
                    .maxPendingTimeouts(3)
                    .build());
            assertThat(timer.stats()).isEqualTo(new TimerStats(0, 0, 0, 0, 0, 0, 0, Duration.ZERO, State.INIT));

            timer.newTimeout(noop(), Duration.ofMillis(100));
            timer.newTimeout(
                    t -> {
                        throw new IllegalStateException("expected");
                    },
                    Duration.ofMillis(200));
            Timeout far = timer.newTimeout(noop(), Duration.ofHours(1));
            assertThatThrownBy(() -> timer.newTimeout(noop(), Duration.ofMillis(1)))
                    .isInstanceOf(RejectedExecutionException.class);
            assertThat(timer.stats()).isEqualTo(new TimerStats(3, 3, 0, 0, 1, 0, 0, Duration.ZERO, State.STARTED));

            far.cancel();
            timer.newTimeout(noop(), Duration.ofMillis(300));
            assertThat(timer.stats()).isEqualTo(new TimerStats(3, 4, 0, 1, 1, 0, 0, Duration.ZERO, State.STARTED));

            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                ticker.advance(Duration.ofMillis(200));
                assertThat(log.records(Level.WARNING)).hasSize(1);
            }
            assertThat(timer.stats()).isEqualTo(new TimerStats(1, 4, 2, 1, 1, 1, 2, Duration.ZERO, State.STARTED));
            assertThat(timer.pendingTimeouts()).isOne();

            ticker.advance(Duration.ofMillis(100));
            assertThat(timer.stats()).isEqualTo(new TimerStats(0, 4, 3, 1, 1, 1, 3, Duration.ZERO, State.STARTED));
            assertThat(timer.pendingTimeouts()).isZero();

            timer.newTimeout(noop(), Duration.ofHours(1));
            assertThat(timer.stop()).hasSize(1);
            assertThat(timer.stats()).isEqualTo(new TimerStats(0, 5, 3, 2, 1, 1, 3, Duration.ZERO, State.SHUTDOWN));
        }

        @Test
        void tickLagShowsHowLateTheWorkerIsWhileATaskHoldsIt() throws Exception {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, true);
            HoldingTask holding = new HoldingTask();
            timer.newTimeout(holding, Duration.ofMillis(100));

            Future<?> advance = pool.submit(() -> ticker.advance(Duration.ofMillis(150)));
            holding.awaitHolding();
            assertThat(timer.stats().tickLag()).isEqualTo(Duration.ofMillis(50));
            holding.release();
            advance.get(10, SECONDS);

            assertThat(timer.stats().tickLag()).isZero();
        }
    }

    /** upcoming(limit): the soonest pending timeouts with their remaining time. */
    @Nested
    class Upcoming {

        @ParameterizedTest(name = "hierarchical={0}")
        @ValueSource(booleans = {true, false})
        void upcomingListsSoonestFirstWithExactRemainingAndRespectsTheLimit(boolean hierarchical) {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, hierarchical);
            timer.newTimeout(new RecordingTask("in 10 min"), Duration.ofMinutes(10));
            timer.newTimeout(new RecordingTask("in 5 s"), Duration.ofSeconds(5));
            timer.newTimeout(new RecordingTask("in 200 ms"), Duration.ofMillis(200));
            timer.newTimeout(new RecordingTask("in 3 days"), Duration.ofDays(3));
            timer.newTimeout(new RecordingTask("cancelled"), Duration.ofSeconds(1))
                    .cancel();
            timer.newTimeout(new RecordingTask("in 1 s"), Duration.ofSeconds(1));

            ticker.advance(Duration.ofMillis(250));

            assertThat(timer.upcoming(10))
                    .containsExactly(
                            new TimeoutInfo("in 1 s", Duration.ofMillis(750)),
                            new TimeoutInfo("in 5 s", Duration.ofMillis(4_750)),
                            new TimeoutInfo("in 10 min", Duration.ofMinutes(10).minusMillis(250)),
                            new TimeoutInfo("in 3 days", Duration.ofDays(3).minusMillis(250)));
            assertThat(timer.upcoming(2))
                    .containsExactly(
                            new TimeoutInfo("in 1 s", Duration.ofMillis(750)),
                            new TimeoutInfo("in 5 s", Duration.ofMillis(4_750)));
            assertThat(timer.upcoming(1)).extracting(TimeoutInfo::task).containsExactly("in 1 s");
        }

        @Test
        void upcomingRemainingIsZeroForATimeoutPastItsDeadlineAwaitingItsBoundary() {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, true);
            timer.newTimeout(new RecordingTask("t"), Duration.ofMillis(120));

            ticker.advance(Duration.ofMillis(150)); // deadline passed, boundary (200 ms) not reached

            assertThat(timer.upcoming(5)).containsExactly(new TimeoutInfo("t", Duration.ZERO));
        }

        @Test
        void upcomingIncludesTimeoutsTheWorkerHasNotTakenYet() throws Exception {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, true);
            HoldingTask holding = new HoldingTask();
            timer.newTimeout(holding, Duration.ofMillis(100));
            timer.newTimeout(new RecordingTask("taken"), Duration.ofSeconds(3));
            Future<?> advance = pool.submit(() -> ticker.advance(Duration.ofMillis(100)));
            holding.awaitHolding();

            timer.newTimeout(new RecordingTask("not taken, 2 s"), Duration.ofSeconds(2));
            timer.newTimeout(new RecordingTask("not taken, 1 s"), Duration.ofSeconds(1));
            assertThat(timer.runtime.handOff.hasNewTimeouts()).isTrue();
            AtomicReference<List<TimeoutInfo>> result = new AtomicReference<>();
            Thread caller = new Thread(() -> result.set(timer.upcoming(10)));
            caller.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> caller.getState() == Thread.State.TIMED_WAITING);
            assertThat(timer.runtime.handOff.hasNewTimeouts())
                    .as("still not taken while the caller waits")
                    .isTrue();
            holding.release(); // the worker answers between tasks, before it takes the new ones
            caller.join(10_000);
            advance.get(10, SECONDS);

            assertThat(result.get())
                    .containsExactly(
                            new TimeoutInfo("not taken, 1 s", Duration.ofSeconds(1)),
                            new TimeoutInfo("not taken, 2 s", Duration.ofSeconds(2)),
                            new TimeoutInfo("taken", Duration.ofMillis(2_900)));
        }

        @Test
        void upcomingCanBeCalledFromInsideATask() {
            ManualTicker ticker = new ManualTicker();
            HashedWheelTimer timer = manualTimer(ticker, true);
            timer.newTimeout(new RecordingTask("later"), Duration.ofSeconds(10));
            AtomicReference<List<TimeoutInfo>> seen = new AtomicReference<>();
            timer.newTimeout(
                    t -> {
                        timer.newTimeout(new RecordingTask("scheduled by the task"), Duration.ofSeconds(1));
                        seen.set(timer.upcoming(5));
                    },
                    Duration.ofMillis(100));

            ticker.advance(Duration.ofMillis(100));

            assertThat(seen.get())
                    .containsExactly(
                            new TimeoutInfo("scheduled by the task", Duration.ofSeconds(1)),
                            new TimeoutInfo("later", Duration.ofMillis(9_900)));
            assertThat(timer.stats().failed()).isZero();
        }

        @Test
        void upcomingOfANegativeLimitIsIllegalArgument() {
            HashedWheelTimer timer = manualTimer(new ManualTicker(), true);
            assertThatThrownBy(() -> timer.upcoming(-1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("-1");
        }

        @Test
        void upcomingIsEmptyForLimitZeroBeforeStartAndAfterStop() {
            HashedWheelTimer timer = timers.track(
                    HashedWheelTimer.builder().ticker(new ManualTicker()).build());
            assertThat(timer.upcoming(10)).isEmpty(); // INIT

            timer.newTimeout(new RecordingTask("t"), Duration.ofSeconds(1));
            assertThat(timer.upcoming(0)).isEmpty();
            assertThat(timer.upcoming(10)).hasSize(1);

            timer.stop();
            assertThat(timer.upcoming(10)).isEmpty();
        }

        @Test
        void upcomingDescribesATaskWhoseToStringThrowsWithoutFailing() {
            HashedWheelTimer timer = manualTimer(new ManualTicker(), true);
            timer.newTimeout(
                    new TimerTask() {
                        @Override
                        public void run(Timeout timeout) {}

                        @Override
                        public String toString() {
                            throw new IllegalStateException("no description");
                        }
                    },
                    Duration.ofSeconds(1));

            List<TimeoutInfo> upcoming = timer.upcoming(1);

            assertThat(upcoming).hasSize(1);
            assertThat(upcoming.get(0).task()).contains("no description");
            assertThat(timer.state()).isEqualTo(State.STARTED);
        }

        @Test
        void upcomingWithAHugeLimitReturnsEveryPendingTimeoutAndKeepsTheTimerRunning() {
            HashedWheelTimer timer = manualTimer(new ManualTicker(), true);
            Timeout timeout = timer.newTimeout(new RecordingTask("t"), Duration.ofHours(1));

            assertThat(timer.upcoming(Integer.MAX_VALUE)).containsExactly(new TimeoutInfo("t", Duration.ofHours(1)));
            assertThat(timer.state()).isEqualTo(State.STARTED);
            assertThat(timeout.isCancelled()).isFalse();
            assertThat(timer.stop()).containsExactly(timeout);
        }
    }

    /** The count of live timers, the too-many-instances error and leak detection. */
    @Nested
    class InstancesAndLeaks {

        /**
         * The one-per-JVM flag is reset first (the flag object is final, its value is not), so the test
         * means the same whatever ran before it in this JVM; it ends set, as it would be anyway.
         */
        @Test
        void moreThan64LiveInstancesLogOneErrorPerJvm() throws Exception {
            AtomicBoolean warned = LiveInstances.WARNED;
            AtomicInteger instances = LiveInstances.COUNT;
            int before = instances.get();
            String fragment = "too many HashedWheelTimer instances";
            warned.set(false);
            List<HashedWheelTimer> many = new ArrayList<>();
            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                if (before < 64) {
                    // stopped timers are not live: creating and stopping one at a time logs nothing
                    for (int i = 0; i < 100; i++) {
                        HashedWheelTimer timer = HashedWheelTimer.builder()
                                .name("short-lived-" + i)
                                .build();
                        timer.stop();
                    }
                    assertThat(log.count(Level.SEVERE, fragment)).isZero();
                    assertThat(warned.get()).isFalse();
                }

                for (int i = 0; i < 70; i++) {
                    many.add(timers.track(
                            HashedWheelTimer.builder().name("many-" + i).build()));
                }
                assertThat(instances.get()).isGreaterThan(64);
                assertThat(log.count(Level.SEVERE, fragment)).isOne();
                assertThat(warned.get()).isTrue();

                for (int i = 0; i < 70; i++) {
                    many.add(timers.track(
                            HashedWheelTimer.builder().name("more-" + i).build()));
                }
                assertThat(log.count(Level.SEVERE, fragment)).as("once per JVM").isOne();
            } finally {
                many.forEach(HashedWheelTimer::stop);
            }
            assertThat(instances.get()).isLessThanOrEqualTo(before);
        }

        @Test
        void timerCollectedWithoutStopIsReportedAsALeakWhenLeakDetectionIsOn() throws Exception {
            AtomicInteger instances = LiveInstances.COUNT;
            String name = "leaky-" + System.nanoTime();
            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                HashedWheelTimer.builder().name(name).leakDetection(true).build(); // never stopped

                await().atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> {
                            System.gc();
                            return log.count(Level.SEVERE, name) > 0;
                        });
                assertThat(log.messages(Level.SEVERE).stream().filter(m -> m.contains(name)))
                        .singleElement()
                        .asString()
                        .contains("LEAK");
            }

            int before = instances.get();
            String quiet = "quiet-" + System.nanoTime();
            try (LogCapture log = LogCapture.of(HashedWheelTimer.class)) {
                WeakReference<HashedWheelTimer> ref = new WeakReference<>(HashedWheelTimer.builder()
                        .name(quiet)
                        .leakDetection(false)
                        .build());
                await().atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> {
                            System.gc();
                            return ref.get() == null && instances.get() <= before;
                        });
                assertThat(log.count(Level.SEVERE, quiet)).isZero();
            }
        }

        @Test
        void timerWhoseThreadCannotStartIsNotCountedAsLive() throws Exception {
            AtomicInteger instances = LiveInstances.COUNT;
            Thread finished = new Thread(() -> {});
            finished.start();
            finished.join();
            int before = instances.get();
            HashedWheelTimer timer = timers.track(
                    HashedWheelTimer.builder().threadFactory(r -> finished).build());
            assertThat(instances.get()).isEqualTo(before + 1);

            assertThatThrownBy(timer::start).isInstanceOf(IllegalThreadStateException.class);
            timer.stop();

            assertThat(timer.state()).isEqualTo(State.SHUTDOWN);
            assertThat(instances.get()).isEqualTo(before);
        }
    }
}
