package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer.State;
import io.wheeltimer.testsupport.LogCapture;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/** The count of live timers, the too-many-instances error and leak detection. */
class InstancesAndLeaksTest extends TimerTestFixture {

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
                    HashedWheelTimer timer =
                            HashedWheelTimer.builder().name("short-lived-" + i).build();
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
            WeakReference<HashedWheelTimer> ref = new WeakReference<>(
                    HashedWheelTimer.builder().name(quiet).leakDetection(false).build());
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
