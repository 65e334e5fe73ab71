package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.wheeltimer.jdbc.DurableTimeoutContext;
import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * One trace from schedule to fire, with Micrometer Tracing's Brave bridge: the scheduling span's
 * W3C traceparent is stored with the timeout, and the run's {@code wheel.timer.task} span is its
 * child, in the same trace, on another instance after the first one stopped. Without tracing,
 * nothing is stored and the run still happens.
 */
class DurableTraceTest {

    /** What each run saw: instance, trace id, parent span id. */
    static final Queue<String[]> RUNS = new ConcurrentLinkedQueue<>();

    /** The spans Brave finished, as a Zipkin reporter would get them. */
    static final Queue<MutableSpan> SPANS = new ConcurrentLinkedQueue<>();

    static class Orders {
        private final ObjectProvider<Tracer> tracer;
        private final String instance;

        Orders(ObjectProvider<Tracer> tracer, String instance) {
            this.tracer = tracer;
            this.instance = instance;
        }

        @DurableTimerTask("order-payment")
        public void cancelIfUnpaid(String orderId) {
            Tracer current = tracer.getIfAvailable();
            Span span = current == null ? null : current.currentSpan();
            RUNS.add(
                    span == null
                            ? new String[] {instance, null, null}
                            : new String[] {
                                instance,
                                span.context().traceId(),
                                span.context().parentId()
                            });
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        Orders orders(ObjectProvider<Tracer> tracer, Environment environment) {
            return new Orders(tracer, environment.getProperty("wheel-timer.durable.instance-id"));
        }

        @Bean
        SpanHandler recordingSpanHandler() {
            return new SpanHandler() {
                @Override
                public boolean end(TraceContext context, MutableSpan span, Cause cause) {
                    SPANS.add(span);
                    return true;
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UntracedOrders {
        @Bean
        Orders orders(ObjectProvider<Tracer> tracer) {
            return new Orders(tracer, "untraced");
        }
    }

    private static ConfigurableApplicationContext start(String instance) {
        List<String> arguments = new ArrayList<>();
        for (String property : DurableApps.FAST) {
            arguments.add("--" + property);
        }
        arguments.addAll(List.of(
                "--" + DurableApps.WITH_DATA_SOURCE,
                "--spring.datasource.url=jdbc:h2:mem:trace;DB_CLOSE_DELAY=-1",
                "--management.tracing.sampling.probability=1.0",
                "--spring.main.banner-mode=off",
                "--wheel-timer.durable.instance-id=" + instance));
        return new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .run(arguments.toArray(String[]::new));
    }

    @Test
    @SuppressWarnings("try") // the scope makes the order's span current
    void theRunContinuesTheTraceOfTheScheduleOnAnotherInstanceAfterARestart() {
        RUNS.clear();
        String traceId;
        String scheduledBy;
        String stored;
        try (ConfigurableApplicationContext first = start("node-a")) {
            assertThat(first.getBean(DurableTimeoutContext.class)).isInstanceOf(TracingDurableTimeoutContext.class);
            JdbcDurableTimer timer = DurableApps.holdingTimer(first);
            Tracer tracer = first.getBean(Tracer.class);
            Observation order = Observation.start("place-order", first.getBean(ObservationRegistry.class));
            try (Observation.Scope scope = order.openScope()) {
                traceId = tracer.currentSpan().context().traceId();
                scheduledBy = tracer.currentSpan().context().spanId();
                timer.schedule("order-payment", "o-1", Duration.ofSeconds(5));
            } finally {
                order.stop();
            }
            stored = first.getBean(JdbcClient.class)
                    .sql("SELECT trace_context FROM " + timer.tableName() + " WHERE timeout_key = 'o-1'")
                    .query(String.class)
                    .single();
        } // stopped before the deadline: it releases o-1
        assertThat(stored).isEqualTo("00-" + traceId + "-" + scheduledBy + "-01");
        assertThat(RUNS).as("not run by the first instance").isEmpty();

        SPANS.clear();
        try (ConfigurableApplicationContext second = start("node-b")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> !RUNS.isEmpty());
            assertThat(RUNS).singleElement().satisfies(run -> {
                assertThat(run[0]).isEqualTo("node-b");
                assertThat(run[1]).as("the trace of the schedule").isEqualTo(traceId);
                assertThat(run[2]).as("a child of the span that scheduled it").isEqualTo(scheduledBy);
            });
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(SPANS)
                            .filteredOn(
                                    span -> span.name() != null && span.name().contains("cancelIfUnpaid"))
                            .singleElement()
                            .satisfies(span -> {
                                assertThat(span.traceId()).isEqualTo(traceId);
                                assertThat(span.parentId()).isEqualTo(scheduledBy);
                                assertThat(span.tag("task")).contains("cancelIfUnpaid");
                            }));
        }
    }

    @Test
    void scheduledWithoutASpanNothingIsStoredAndTheRunStartsATraceOfItsOwn() {
        RUNS.clear();
        try (ConfigurableApplicationContext context = start("alone")) {
            JdbcDurableTimer timer = DurableApps.holdingTimer(context);
            timer.schedule("order-payment", "o-2", Duration.ofHours(1));
            assertThat(storedContext(context, timer, "o-2")).isNull();
            timer.schedule("order-payment", "o-2", Duration.ZERO);
            await().atMost(Duration.ofSeconds(30)).until(() -> !RUNS.isEmpty());
            assertThat(RUNS.peek()[1]).as("a trace of its own").isNotNull();
            assertThat(RUNS.peek()[2]).as("a root span").isNull();
        }
    }

    @Test
    void withoutTracingNothingIsStoredAndNothingBreaks() {
        RUNS.clear();
        DurableApps.runner(Database.H2)
                .withUserConfiguration(UntracedOrders.class)
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(DurableTimeoutContext.class);
                    JdbcDurableTimer timer = DurableApps.holdingTimer(context);
                    timer.schedule("order-payment", "o-3", Duration.ofHours(1));
                    assertThat(storedContext(context, timer, "o-3")).isNull();
                    timer.schedule("order-payment", "o-3", Duration.ZERO);
                    await().atMost(Duration.ofSeconds(30)).until(() -> !RUNS.isEmpty());
                    assertThat(Arrays.asList(RUNS.peek())).containsExactly("untraced", null, null);
                });
    }

    private static String storedContext(ApplicationContext context, JdbcDurableTimer timer, String key) {
        return context.getBean(JdbcClient.class)
                .sql("SELECT trace_context FROM " + timer.tableName() + " WHERE timeout_key = ?")
                .param(key)
                .query((row, number) -> Optional.ofNullable(row.getString(1)))
                .single()
                .orElse(null);
    }
}
