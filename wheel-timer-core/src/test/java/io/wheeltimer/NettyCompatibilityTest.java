package io.wheeltimer;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Side by side with Netty's own {@code io.netty.util.HashedWheelTimer} (netty-common 4.2.18, test
 * scope): the code Netty users write, the same messages and exception types, and the places where
 * this timer does better (a range check, exact counts).
 */
class NettyCompatibilityTest {

    private final List<HashedWheelTimer> ours = new ArrayList<>();
    private final List<io.netty.util.HashedWheelTimer> netty = new ArrayList<>();

    @AfterEach
    void stopAll() {
        ours.forEach(HashedWheelTimer::stop);
        netty.forEach(io.netty.util.HashedWheelTimer::stop);
    }

    private HashedWheelTimer ours(HashedWheelTimer timer) {
        ours.add(timer);
        return timer;
    }

    private io.netty.util.HashedWheelTimer netty(io.netty.util.HashedWheelTimer timer) {
        netty.add(timer);
        return timer;
    }

    /** The usual Netty snippet, with only the imports changed. */
    @Test
    void codeWrittenForNettysTimerWorksUnchanged() {
        HashedWheelTimer timer = ours(
                new HashedWheelTimer(Executors.defaultThreadFactory(), 100, TimeUnit.MILLISECONDS, 10, false, 1000));
        assertThat(timer.ticksPerWheel()).isEqualTo(16);
        TimerTask tenSeconds = new NamedTask("10 s task");
        TimerTask fiveSeconds = new NamedTask("5 s task");

        Timeout ten = timer.newTimeout(tenSeconds, 10, TimeUnit.SECONDS);
        Timeout five = timer.newTimeout(fiveSeconds, 5, TimeUnit.SECONDS);

        assertThat(timer.pendingTimeouts()).isEqualTo(2);
        List<TimeoutInfo> upcoming = timer.upcoming(10);
        assertThat(upcoming).extracting(TimeoutInfo::task).containsExactly("5 s task", "10 s task");
        assertThat(upcoming.get(0).remaining())
                .isLessThanOrEqualTo(Duration.ofSeconds(5))
                .isGreaterThan(Duration.ofSeconds(4)); // generous: a slow CI machine
        assertThat(ten.timer()).isSameAs(timer);
        assertThat(five.task()).isSameAs(fiveSeconds);

        Set<Timeout> unprocessed = timer.stop();

        assertThat(unprocessed).containsExactlyInAnyOrder(ten, five);
        assertThat(unprocessed).allSatisfy(t -> assertThat(t.isCancelled()).isTrue());
        assertThat(timer.pendingTimeouts()).isZero();
    }

    @Test
    void nettysOwnTimerBehavesTheSameForThatSnippet() {
        io.netty.util.HashedWheelTimer timer = netty(new io.netty.util.HashedWheelTimer(
                Executors.defaultThreadFactory(), 100, TimeUnit.MILLISECONDS, 10, false, 1000));

        io.netty.util.Timeout ten = timer.newTimeout(t -> {}, 10, TimeUnit.SECONDS);
        io.netty.util.Timeout five = timer.newTimeout(t -> {}, 5, TimeUnit.SECONDS);

        assertThat(timer.pendingTimeouts()).isEqualTo(2);
        Set<io.netty.util.Timeout> unprocessed = timer.stop();
        assertThat(unprocessed).containsExactlyInAnyOrder(ten, five);
        assertThat(unprocessed).allSatisfy(t -> assertThat(t.isCancelled()).isTrue());
    }

    @Test
    void maxPendingTimeoutsMessageIsExactlyNettys() {
        HashedWheelTimer timer =
                ours(new HashedWheelTimer(Executors.defaultThreadFactory(), 100, MILLISECONDS, 16, false, 1));
        io.netty.util.HashedWheelTimer nettyTimer = netty(
                new io.netty.util.HashedWheelTimer(Executors.defaultThreadFactory(), 100, MILLISECONDS, 16, false, 1));
        timer.newTimeout(t -> {}, 10, SECONDS);
        nettyTimer.newTimeout(t -> {}, 10, SECONDS);

        Throwable oursRefused = catchThrowable(() -> timer.newTimeout(t -> {}, 10, SECONDS));
        Throwable nettyRefused = catchThrowable(() -> nettyTimer.newTimeout(t -> {}, 10, SECONDS));

        assertThat(nettyRefused).isExactlyInstanceOf(RejectedExecutionException.class);
        assertThat(oursRefused)
                .isExactlyInstanceOf(RejectedExecutionException.class)
                .hasMessage(nettyRefused.getMessage())
                .hasMessage("Number of pending timeouts (2) is greater than or equal to maximum allowed"
                        + " pending timeouts (1)");
        assertThat(timer.pendingTimeouts())
                .isEqualTo(nettyTimer.pendingTimeouts())
                .isOne();
    }

    @Test
    void newTimeoutAfterStopHasNettysExceptionAndMessage() {
        HashedWheelTimer timer = ours(new HashedWheelTimer());
        io.netty.util.HashedWheelTimer nettyTimer = netty(new io.netty.util.HashedWheelTimer());
        timer.start();
        nettyTimer.start();
        timer.stop();
        nettyTimer.stop();

        Throwable oursRefused = catchThrowable(() -> timer.newTimeout(t -> {}, 1, SECONDS));
        Throwable nettyRefused = catchThrowable(() -> nettyTimer.newTimeout(t -> {}, 1, SECONDS));

        assertThat(oursRefused).isExactlyInstanceOf(nettyRefused.getClass()).hasMessage(nettyRefused.getMessage());
    }

    /** One bad argument at a time, then two at once, where Netty's order of checks decides. */
    static Stream<Arguments> badConstructorArguments() {
        ThreadFactory f = Executors.defaultThreadFactory();
        Executor direct = Runnable::run;
        return Stream.of(
                Arguments.of("null threadFactory", new Args(null, 100, MILLISECONDS, 16, direct)),
                Arguments.of("null unit", new Args(f, 100, null, 16, direct)),
                Arguments.of("null taskExecutor", new Args(f, 100, MILLISECONDS, 16, null)),
                Arguments.of("zero tick", new Args(f, 0, MILLISECONDS, 16, direct)),
                Arguments.of("negative tick", new Args(f, -1, MILLISECONDS, 16, direct)),
                Arguments.of("zero ticksPerWheel", new Args(f, 100, MILLISECONDS, 0, direct)),
                Arguments.of("negative ticksPerWheel", new Args(f, 100, MILLISECONDS, -1, direct)),
                Arguments.of("tick x wheel overflows", new Args(f, Long.MAX_VALUE / 512, NANOSECONDS, 512, direct)),
                Arguments.of(
                        "tick x rounded wheel overflows", new Args(f, Long.MAX_VALUE / 512, NANOSECONDS, 300, direct)),
                Arguments.of("overflowing tick unit", new Args(f, Long.MAX_VALUE, TimeUnit.DAYS, 1, direct)),
                Arguments.of("zero tick and null taskExecutor", new Args(f, 0, MILLISECONDS, 16, null)),
                Arguments.of("zero ticksPerWheel and null taskExecutor", new Args(f, 100, MILLISECONDS, 0, null)));
    }

    /** Arguments of the seven-argument constructor, which every other one delegates to. */
    record Args(ThreadFactory factory, long tick, TimeUnit unit, int wheel, Executor executor) {

        <T> T build(Function<Args, T> constructor) {
            return constructor.apply(this);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badConstructorArguments")
    void badConstructorArgumentsThrowTheSameExceptionTypeAsNetty(String what, Args args) {
        Throwable ours = catchThrowable(() -> ours(args.build(
                a -> new HashedWheelTimer(a.factory(), a.tick(), a.unit(), a.wheel(), false, 0, a.executor()))));
        Throwable theirs = catchThrowable(() -> netty(args.build(a -> new io.netty.util.HashedWheelTimer(
                a.factory(), a.tick(), a.unit(), a.wheel(), false, 0, a.executor()))));

        assertThat(theirs).as("Netty's").isNotNull();
        assertThat(ours).as(what).isExactlyInstanceOf(theirs.getClass());
        if (theirs instanceof NullPointerException) {
            assertThat(ours).hasMessageContaining(theirs.getMessage()); // Netty's message is the parameter name
        }
    }

    /**
     * Netty 4.2.18 does not range-check ticksPerWheel > 2^30: it fails in MathUtil.findNextPositivePowerOfTwo
     * (AssertionError with -ea, NegativeArraySizeException without). This timer throws
     * IllegalArgumentException naming the value and the allowed range.
     */
    @Test
    void ticksPerWheelAboveTwoToTheThirtyIsIllegalArgumentWhereNettyFailsWorse() {
        ThreadFactory f = Executors.defaultThreadFactory();
        int tooBig = (1 << 30) + 1;

        Throwable theirs =
                catchThrowable(() -> netty(new io.netty.util.HashedWheelTimer(f, 100, MILLISECONDS, tooBig)));

        assertThat(theirs).isNotNull().isNotInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ours(new HashedWheelTimer(f, 100, MILLISECONDS, tooBig)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tooShortTickIsRaisedToOneMillisecondLikeNetty() {
        HashedWheelTimer timer =
                ours(new HashedWheelTimer(Executors.defaultThreadFactory(), 10, TimeUnit.MICROSECONDS));
        netty(new io.netty.util.HashedWheelTimer(Executors.defaultThreadFactory(), 10, TimeUnit.MICROSECONDS));

        assertThat(timer.tickDuration()).isEqualTo(Duration.ofMillis(1));
    }

    /**
     * Exact counts: a newTimeout refused because the timer was stopped leaves pendingTimeouts()
     * exact. Netty 4.2.18 counts the refused call as pending forever.
     */
    @Test
    void refusedNewTimeoutAfterStopLeavesPendingExactWhereNettyLeaksOne() {
        HashedWheelTimer timer = ours(new HashedWheelTimer());
        io.netty.util.HashedWheelTimer nettyTimer = netty(new io.netty.util.HashedWheelTimer());
        timer.start();
        nettyTimer.start();
        assertThat(timer.stop()).isEmpty();
        assertThat(nettyTimer.stop()).isEmpty();
        assertThat(nettyTimer.pendingTimeouts()).isZero();

        assertThatThrownBy(() -> timer.newTimeout(t -> {}, 1, SECONDS)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> nettyTimer.newTimeout(t -> {}, 1, SECONDS)).isInstanceOf(IllegalStateException.class);

        assertThat(timer.pendingTimeouts()).isZero();
        assertThat(timer.stats().pending()).isZero();
        assertThat(timer.stats().scheduled()).isZero();
        assertThat(nettyTimer.pendingTimeouts())
                .as("Netty leaks the refused one")
                .isOne();
    }

    /** Netty also keeps the timeouts stop() cancelled in pendingTimeouts(); we do not. */
    @Test
    void timeoutsCancelledByStopAreNoLongerPendingWhereNettyStillCountsThem() {
        HashedWheelTimer timer = ours(new HashedWheelTimer());
        io.netty.util.HashedWheelTimer nettyTimer = netty(new io.netty.util.HashedWheelTimer());
        timer.newTimeout(t -> {}, 1, TimeUnit.HOURS);
        nettyTimer.newTimeout(t -> {}, 1, TimeUnit.HOURS);

        assertThat(timer.stop()).hasSize(1);
        assertThat(nettyTimer.stop()).hasSize(1);

        assertThat(timer.pendingTimeouts()).isZero();
        assertThat(nettyTimer.pendingTimeouts()).isOne();
    }

    /** Netty fires a deadline that falls on a tick boundary one tick late; ours fires at the boundary. */
    @Test
    void deadlineExactlyOnATickBoundaryFiresAtThatBoundary() {
        ManualTicker ticker = new ManualTicker();
        HashedWheelTimer timer = ours(HashedWheelTimer.builder()
                .ticker(ticker)
                .tickDuration(Duration.ofMillis(100))
                .build());
        timer.start();
        RecordingTask task = new RecordingTask("on the boundary", ticker);
        timer.newTimeout(task, 300, MILLISECONDS);

        ticker.advance(Duration.ofMillis(300).minusNanos(1));
        assertThat(task.runs()).isZero();
        ticker.advance(Duration.ofNanos(1));

        assertThat(task.runs()).isOne();
        assertThat(task.ranAtNanos).isEqualTo(Duration.ofMillis(300).toNanos());
    }

    @Test
    void nettyStyleLambdaTasksAndTimeoutMethodsCompile() throws Exception {
        HashedWheelTimer timer = ours(new HashedWheelTimer(10, MILLISECONDS));
        java.util.concurrent.CountDownLatch ran = new java.util.concurrent.CountDownLatch(1);
        Timeout[] seen = new Timeout[1];

        Timeout timeout = timer.newTimeout(
                t -> {
                    seen[0] = t;
                    ran.countDown();
                },
                20,
                MILLISECONDS);

        assertThat(ran.await(10, SECONDS)).isTrue();
        assertThat(seen[0]).isSameAs(timeout);
        assertThat(timeout.isExpired()).isTrue();
        assertThat(timeout.isCancelled()).isFalse();
        assertThat(timeout.cancel()).isFalse();
    }

    private static final class NamedTask implements TimerTask {
        private final String name;

        NamedTask(String name) {
            this.name = name;
        }

        @Override
        public void run(Timeout timeout) {}

        @Override
        public String toString() {
            return name;
        }
    }
}
