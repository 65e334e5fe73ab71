package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What the runtime behind the front must keep for the front and for integrations such as Spring's. */
class TimerRuntimeTest {

    @Test
    void taskExecutorIsHandedTheTimeoutItselfWhoseTimerIsTheFront() {
        ManualTicker ticker = new ManualTicker();
        List<Runnable> handedOver = new CopyOnWriteArrayList<>();
        AtomicInteger runs = new AtomicInteger();
        HashedWheelTimer timer = HashedWheelTimer.builder()
                .ticker(ticker)
                .tickDuration(Duration.ofMillis(10))
                .taskExecutor(handedOver::add)
                .build();
        try {
            Timeout timeout = timer.newTimeout(t -> runs.incrementAndGet(), Duration.ofMillis(10));
            ticker.advance(Duration.ofMillis(10));

            assertThat(handedOver).singleElement().isSameAs(timeout);
            assertThat(((Timeout) handedOver.get(0)).timer()).isSameAs(timer);
            handedOver.get(0).run();
            assertThat(runs).hasValue(1);
        } finally {
            timer.stop();
        }
    }
}
