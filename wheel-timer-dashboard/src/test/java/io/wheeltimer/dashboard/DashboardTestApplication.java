package io.wheeltimer.dashboard;

import static org.awaitility.Awaitility.await;

import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A web application with the starter, durable timeouts on H2 in memory and the dashboard: one task,
 * {@value #TASK}, whose handler fails while {@link Payments#failing} is set. Its properties are in
 * the tests' application.properties (a fresh database per context, quick polls, one attempt).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class DashboardTestApplication {

    static final String TASK = "order-payment";

    @Bean
    Payments payments() {
        return new Payments();
    }

    /** The task's handler: records what ran; throws while failing is set. */
    static class Payments {

        final AtomicBoolean failing = new AtomicBoolean();
        final Set<String> ran = ConcurrentHashMap.newKeySet();

        @DurableTimerTask(TASK)
        void cancelIfUnpaid(DurableTimeout timeout) {
            if (failing.get()) {
                throw new IllegalStateException("payment service down for " + timeout.key());
            }
            ran.add(timeout.key());
        }

        /**
         * Schedules each of {@code keys} due at once and has the handler fail them until {@code durable} has
         * given up on them all (the tests' one attempt).
         */
        void giveUp(JdbcDurableTimer durable, String... keys) {
            failing.set(true);
            for (String key : keys) {
                durable.schedule(TASK, key, Duration.ZERO);
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> Stream.of(keys)
                            .allMatch(key -> durable.findFailed(TASK, key).isPresent()));
            failing.set(false);
        }
    }
}
