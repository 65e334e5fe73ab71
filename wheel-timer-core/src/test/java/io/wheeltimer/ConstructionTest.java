package io.wheeltimer;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.HashedWheelTimer.State;
import io.wheeltimer.testsupport.LogCapture;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Settings, their defaults and getters, the rounding of ticksPerWheel, the sub-millisecond tick and every Netty constructor. */
class ConstructionTest extends TimerTestFixture {

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
        assertThat(timers.track(HashedWheelTimer.builder().hierarchical(true).build())
                        .isHierarchical())
                .isTrue();
        assertThat(timers.track(HashedWheelTimer.builder().hierarchical(false).build())
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
                Arguments.of("(factory)", (Supplier<HashedWheelTimer>) () -> new HashedWheelTimer(f), 100L, 512, -1L),
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
