package io.wheeltimer.dashboard;

import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.DurableTimerTask;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
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
    }
}
