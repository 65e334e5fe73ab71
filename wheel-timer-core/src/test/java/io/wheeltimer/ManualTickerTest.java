package io.wheeltimer;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link ManualTicker}: a clock that moves only when told, and waits for the timers on it. */
@org.junit.jupiter.api.Timeout(value = 60, unit = SECONDS)
class ManualTickerTest {

    @RegisterExtension
    final TestTimers timers = new TestTimers();

    private HashedWheelTimer startedTimer(ManualTicker ticker) {
        HashedWheelTimer timer = HashedWheelTimer.builder()
                .ticker(ticker)
                .tickDuration(Duration.ofMillis(100))
                .build();
        timers.track(timer);
        timer.start();
        return timer;
    }

    // --- the clock ---------------------------------------------------------------------------

    @Test
    void startsAtZero() {
        assertThat(new ManualTicker().nanoTime()).isZero();
    }

    @ParameterizedTest
    @ValueSource(longs = {12_345, -1, Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE})
    void startsAtTheGivenTime(long start) {
        assertThat(new ManualTicker(start).nanoTime()).isEqualTo(start);
    }

    @Test
    void advanceByDurationMovesTheTime() {
        ManualTicker ticker = new ManualTicker(1_000);

        ManualTicker returned = ticker.advance(Duration.ofMillis(250));

        assertThat(returned).isSameAs(ticker);
        assertThat(ticker.nanoTime()).isEqualTo(1_000 + 250_000_000L);
        ticker.advance(Duration.ZERO);
        assertThat(ticker.nanoTime()).isEqualTo(1_000 + 250_000_000L);
    }

    @Test
    void advanceByAmountAndUnitMovesTheTime() {
        ManualTicker ticker = new ManualTicker();

        assertThat(ticker.advance(3, SECONDS)).isSameAs(ticker);
        ticker.advance(7, NANOSECONDS);
        ticker.advance(0, TimeUnit.DAYS);

        assertThat(ticker.nanoTime()).isEqualTo(3_000_000_007L);
    }

    @Test
    void timeWrapsAroundPastLongMaxValueLikeNanoTime() {
        ManualTicker ticker = new ManualTicker(Long.MAX_VALUE - 1);

        ticker.advance(2, NANOSECONDS);
        assertThat(ticker.nanoTime()).isEqualTo(Long.MIN_VALUE);
        ticker.advance(Duration.ofNanos(10));
        assertThat(ticker.nanoTime()).isEqualTo(Long.MIN_VALUE + 10);
        assertThat(ticker.nanoTime() - (Long.MAX_VALUE - 1))
                .as("differences stay right")
                .isEqualTo(12);
    }

    @Test
    void negativeAmountIsIllegalArgumentNamingTheValue() {
        ManualTicker ticker = new ManualTicker(5);

        assertThatThrownBy(() -> ticker.advance(Duration.ofMillis(-3)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Duration.ofMillis(-3).toString());
        assertThatThrownBy(() -> ticker.advance(-3, MILLISECONDS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-3");
        assertThat(ticker.nanoTime()).isEqualTo(5);
    }

    @Test
    void durationBeyondLongNanosIsIllegalArgument() {
        ManualTicker ticker = new ManualTicker();

        assertThatThrownBy(() -> ticker.advance(Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(ticker.nanoTime()).isZero();
    }

    @Test
    void nullAmountOrUnitIsNullPointer() {
        ManualTicker ticker = new ManualTicker();

        assertThatThrownBy(() -> ticker.advance(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("amount");
        assertThatThrownBy(() -> ticker.advance(1, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("unit");
    }

    @Test
    void advanceWithNoTimersReturnsAtOnce() {
        ManualTicker ticker = new ManualTicker();
        long started = System.nanoTime();

        for (int i = 0; i < 1_000; i++) {
            ticker.advance(Duration.ofHours(1));
        }

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
        assertThat(ticker.nanoTime()).isEqualTo(Duration.ofHours(1_000).toNanos());
    }

    @Test
    void toStringShowsTheTime() {
        assertThat(new ManualTicker(42)).hasToString("ManualTicker(42 ns)");
    }

    // --- as a Ticker, without a timer ----------------------------------------------------------

    @Test
    void sleepUntilReturnsOnceTheTimeIsReached() throws Exception {
        ManualTicker ticker = new ManualTicker();
        AtomicBoolean woke = new AtomicBoolean();
        Thread sleeper = new Thread(() -> {
            ticker.sleepUntil(100);
            woke.set(true);
        });
        sleeper.start();
        awaitState(sleeper, Thread.State.WAITING);

        ticker.advance(99, NANOSECONDS);
        assertThat(woke).isFalse();
        assertThat(sleeper.isAlive()).isTrue();
        ticker.advance(1, NANOSECONDS);

        sleeper.join(10_000);
        assertThat(woke).isTrue();
    }

    @Test
    void wakeEndsASleepAndAWakeBeforeTheSleepIsKept() throws Exception {
        ManualTicker ticker = new ManualTicker();
        Thread sleeper = new Thread(ticker::sleep);
        sleeper.start();
        awaitState(sleeper, Thread.State.WAITING);

        ticker.wake(sleeper);
        sleeper.join(10_000);
        assertThat(sleeper.isAlive()).isFalse();

        AtomicReference<Thread> self = new AtomicReference<>();
        CountDownLatch woken = new CountDownLatch(1);
        Thread early = new Thread(() -> {
            self.set(Thread.currentThread());
            woken.countDown();
        });
        ticker.wake(Thread.currentThread()); // a wake before this thread sleeps
        ticker.sleep(); // returns at once
        early.start();
        assertThat(woken.await(10, SECONDS)).isTrue();
        assertThat(self.get()).isSameAs(early);
    }

    private static void awaitState(Thread thread, Thread.State state) throws InterruptedException {
        long deadline = System.nanoTime() + SECONDS.toNanos(10);
        while (thread.getState() != state) {
            assertThat(System.nanoTime()).as("thread reached " + state).isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    // --- with timers ---------------------------------------------------------------------------

    @Test
    void advanceReturnsOnlyAfterTheDueTaskRan() {
        ManualTicker ticker = new ManualTicker();
        HashedWheelTimer timer = startedTimer(ticker);
        AtomicBoolean done = new AtomicBoolean();
        timer.newTimeout(
                t -> {
                    Thread.sleep(300); // a slow task: advance must wait for it
                    done.set(true);
                },
                Duration.ofMillis(100));

        ticker.advance(Duration.ofMillis(100));

        assertThat(done).isTrue();
    }

    @Test
    void advanceWaitsForATaskScheduledFromAnotherThreadJustBefore() throws Exception {
        ManualTicker ticker = new ManualTicker();
        HashedWheelTimer timer = startedTimer(ticker);
        ticker.advance(Duration.ZERO); // the worker is asleep with nothing to do
        AtomicBoolean done = new AtomicBoolean();
        Thread scheduler = new Thread(() -> timer.newTimeout(
                t -> {
                    Thread.sleep(200);
                    done.set(true);
                },
                Duration.ofMillis(50)));
        scheduler.start();
        scheduler.join(10_000);

        ticker.advance(Duration.ofMillis(100));

        assertThat(done).isTrue();
    }

    @Test
    void advanceDoesNotRunWhatIsNotDueYet() {
        ManualTicker ticker = new ManualTicker();
        HashedWheelTimer timer = startedTimer(ticker);
        RecordingTask task = new RecordingTask("t");
        timer.newTimeout(task, Duration.ofMillis(150));

        ticker.advance(Duration.ofMillis(199));
        assertThat(task.runs()).isZero();
        ticker.advance(Duration.ofMillis(1));
        assertThat(task.runs()).isOne();
    }

    @Test
    void twoTimersSharingATickerBothFireInTheSameAdvance() {
        ManualTicker ticker = new ManualTicker();
        HashedWheelTimer first = startedTimer(ticker);
        HashedWheelTimer second = timerWithTick(ticker, Duration.ofMillis(30));
        RecordingTask a = new RecordingTask("a", ticker);
        RecordingTask b = new RecordingTask("b", ticker);
        first.newTimeout(a, Duration.ofMillis(200));
        second.newTimeout(b, Duration.ofMillis(170)); // boundary 180 ms on the 30 ms timer

        ticker.advance(Duration.ofMillis(179));
        assertThat(a.runs() + b.runs()).isZero();
        ticker.advance(Duration.ofMillis(21));

        assertThat(a.runs()).isOne();
        assertThat(b.runs()).isOne();
        assertThat(a.ranOn).isSameAs(first.workerThread());
        assertThat(b.ranOn).isSameAs(second.workerThread());
    }

    private HashedWheelTimer timerWithTick(ManualTicker ticker, Duration tick) {
        HashedWheelTimer timer = HashedWheelTimer.builder()
                .name("second")
                .ticker(ticker)
                .tickDuration(tick)
                .build();
        timers.track(timer);
        timer.start();
        return timer;
    }

    @Test
    void advanceIgnoresAStoppedTimer() {
        ManualTicker ticker = new ManualTicker();
        HashedWheelTimer stopped = startedTimer(ticker);
        HashedWheelTimer running = timerWithTick(ticker, Duration.ofMillis(100));
        stopped.newTimeout(t -> {}, Duration.ofSeconds(1));
        stopped.stop();
        RecordingTask task = new RecordingTask("t");
        running.newTimeout(task, Duration.ofMillis(100));
        long started = System.nanoTime();

        ticker.advance(Duration.ofSeconds(2));

        assertThat(task.runs()).isOne();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    }

    @ParameterizedTest
    @ValueSource(longs = {Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE - 50_000_000})
    void timerOnATickerNearTheEndsOfTheRangeFiresOnTimeAcrossTheWrap(long start) {
        ManualTicker ticker = new ManualTicker(start);
        HashedWheelTimer timer = startedTimer(ticker);
        RecordingTask task = new RecordingTask("t", ticker);
        timer.newTimeout(task, Duration.ofMillis(300));

        ticker.advance(Duration.ofMillis(300).minusNanos(1));
        assertThat(task.runs()).isZero();
        ticker.advance(Duration.ofNanos(1));

        assertThat(task.runs()).isOne();
        assertThat(task.ranAtNanos - start).isEqualTo(Duration.ofMillis(300).toNanos());
    }

    @Test
    void timeMovesOnlyWhenTold() throws Exception {
        ManualTicker ticker = new ManualTicker();
        HashedWheelTimer timer = startedTimer(ticker);
        RecordingTask task = new RecordingTask("t");
        timer.newTimeout(task, Duration.ofMillis(100));

        Thread.sleep(300); // real time passes, ticker time does not

        assertThat(ticker.nanoTime()).isZero();
        assertThat(task.runs()).isZero();
        assertThat(timer.pendingTimeouts()).isOne();
    }
}
