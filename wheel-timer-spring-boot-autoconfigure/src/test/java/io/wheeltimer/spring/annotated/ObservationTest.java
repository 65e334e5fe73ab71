package io.wheeltimer.spring.annotated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.autoconfigure.ManualTime;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Observation: with Boot's observation, metrics and tracing auto-configuration
 * (Brave bridge), a deferred run is observed as {@code wheel.timer.task}: a Micrometer timer with
 * tags {@code name}, {@code task} and {@code error}, and a span in the caller's trace.
 */
class ObservationTest {

    private static final String TASK = ObservationTest.Traced.class.getName() + ".traceId()";
    private static final String FAILING = ObservationTest.Traced.class.getName() + ".fail()";

    private static ConfigurableApplicationContext context;

    @BeforeAll
    static void start() {
        context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties("management.tracing.sampling.probability=1.0", "spring.main.banner-mode=off")
                .run();
    }

    @AfterAll
    static void close() {
        context.close();
    }

    @Test
    @SuppressWarnings("try") // the scope makes the caller's span current
    void theDeferredRunsSpanBelongsToTheCallersTrace() {
        Tracer tracer = context.getBean(Tracer.class);
        Observation caller = Observation.start("caller", context.getBean(ObservationRegistry.class));
        String callerTraceId;
        CompletableFuture<String[]> seen;
        try (Observation.Scope scope = caller.openScope()) {
            callerTraceId = tracer.currentSpan().context().traceId();
            seen = context.getBean(Traced.class).traceId();
        } finally {
            caller.stop();
        }
        context.getBean(ManualTicker.class).advance(Duration.ofSeconds(1));

        assertThat(seen).succeedsWithin(Duration.ofSeconds(30)).satisfies(ids -> {
            assertThat(ids[0]).as("trace id inside the deferred run").isEqualTo(callerTraceId);
            assertThat(ids[1]).as("its own span, a child").isNotEqualTo(ids[2]);
            assertThat(ids[3]).as("the thread").startsWith("traced-");
        });
    }

    @Test
    void eachRunIsTimedAsWheelTimerTaskWithItsTags() {
        MeterRegistry meters = context.getBean(MeterRegistry.class);
        double before = count(meters, TASK, "none");
        context.getBean(Traced.class).traceId();
        context.getBean(ManualTicker.class).advance(Duration.ofSeconds(1));

        await().untilAsserted(() -> assertThat(count(meters, TASK, "none")).isEqualTo(before + 1));
        assertThat(meters.get("wheel.timer.task")
                        .tags("name", "wheelTimer", "task", TASK)
                        .timer()
                        .getId()
                        .getTags())
                .extracting(tag -> tag.getKey())
                .contains("name", "task", "error");
    }

    @Test
    void theRunMetersAreDescribedAndScrapedAsWheelTimerTaskSecondsAndWheelTimerTaskActiveSeconds() {
        MeterRegistry meters = context.getBean(MeterRegistry.class);
        context.getBean(Traced.class).traceId();
        context.getBean(ManualTicker.class).advance(Duration.ofSeconds(1));
        await().untilAsserted(() -> assertThat(count(meters, TASK, "none")).isPositive());

        assertThat(meters.get("wheel.timer.task").timer().getId().getDescription())
                .isEqualTo("Runs of @WheelTimeout methods, from the start of each run to its end");
        assertThat(meters.get("wheel.timer.task.active").longTaskTimer().getId().getDescription())
                .isEqualTo("@WheelTimeout runs in progress, and how long each has been running");
        String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
        assertThat(scrape)
                .contains("# HELP wheel_timer_task_seconds Runs of @WheelTimeout methods")
                .contains("# HELP wheel_timer_task_active_seconds @WheelTimeout runs in progress")
                .contains("# TYPE wheel_timer_task_active_seconds ");
    }

    @Test
    void aFailingRunIsRecordedWithItsError() {
        MeterRegistry meters = context.getBean(MeterRegistry.class);
        context.getBean(Traced.class).fail();
        context.getBean(ManualTicker.class).advance(Duration.ofSeconds(1));

        await().untilAsserted(() ->
                assertThat(count(meters, FAILING, "IllegalStateException")).isEqualTo(1));
    }

    private static double count(MeterRegistry meters, String task, String error) {
        var timer = meters.find("wheel.timer.task")
                .tags("name", "wheelTimer", "task", task, "error", error)
                .timer();
        return timer == null ? 0 : timer.count();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ManualTime.class)
    static class App {

        @Bean(destroyMethod = "shutdownNow")
        ExecutorService tracedExecutor() {
            return Executors.newSingleThreadExecutor(new CustomizableThreadFactory("traced-"));
        }

        @Bean
        Traced traced(Tracer tracer) {
            return new Traced(tracer);
        }
    }

    static class Traced {
        private final Tracer tracer;

        Traced(Tracer tracer) {
            this.tracer = tracer;
        }

        /** The trace id, span id and parent span id seen inside the run, and the thread. */
        @WheelTimeout(delay = "1s", executor = "tracedExecutor")
        public CompletableFuture<String[]> traceId() {
            Span span = tracer.currentSpan();
            return CompletableFuture.completedFuture(new String[] {
                span.context().traceId(),
                span.context().spanId(),
                String.valueOf(span.context().parentId()),
                Thread.currentThread().getName()
            });
        }

        @WheelTimeout(delay = "1s", executor = "tracedExecutor")
        public void fail() {
            throw new IllegalStateException("observed failure");
        }
    }
}
