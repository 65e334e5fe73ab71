package io.wheeltimer;

import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wheeltimer.HashedWheelTimer.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad arguments to the constructors, the builder and newTimeout: a clear error naming the input. */
class ArgumentValidationTest extends TimerTestFixture {

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
                "constructor tickDuration 0", illegal, () -> new HashedWheelTimer(0, MILLISECONDS), "tickDuration"));
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
                "builder blank name", illegal, () -> HashedWheelTimer.builder().name(" "), "name"));
        cases.add(bad(
                "builder empty name", illegal, () -> HashedWheelTimer.builder().name(""), "name"));
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
        cases.add(bad("builder null name", npe, () -> HashedWheelTimer.builder().name(null), "name"));
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
        cases.add(
                bad("builder null ticker", npe, () -> HashedWheelTimer.builder().ticker(null), "ticker"));
        return cases.stream();
    }

    private static Arguments bad(String what, Class<? extends Throwable> type, ThrowingCallable call, String... named) {
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
