package io.wheeltimer.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timer;
import io.wheeltimer.spring.autoconfigure.ActuatorHttp.NamedTask;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthContributors;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;

/**
 * The starter in applications that have only some of its optional integrations (Micrometer, the
 * actuator, {@code spring-boot-health}) on the classpath, hidden with a {@link FilteredClassLoader}.
 */
class OptionalIntegrationsTest {

    private static final AutoConfigurations WHEEL_TIMER = AutoConfigurations.of(
            WheelTimerAutoConfiguration.class,
            WheelTimerMetricsAutoConfiguration.class,
            WheelTimerEndpointAutoConfiguration.class,
            WheelTimerHealthAutoConfiguration.class);

    private static final String MICROMETER = "io.micrometer";
    private static final String ACTUATOR = "org.springframework.boot.actuate";
    private static final String HEALTH = "org.springframework.boot.health";

    private static final List<String> METERS = List.of(
            "wheel.timer.pending",
            "wheel.timer.scheduled",
            "wheel.timer.expired",
            "wheel.timer.cancelled",
            "wheel.timer.rejected",
            "wheel.timer.failed",
            "wheel.timer.tick.lag");

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(WHEEL_TIMER).withUserConfiguration(ManualTime.class);

    /** A second timer of the application's own, next to the auto-configured one. */
    @Configuration(proxyBeanMethods = false)
    static class SecondTimerConfig {

        @Bean(defaultCandidate = false, destroyMethod = "stop")
        HashedWheelTimer auditTimer(ManualTicker ticker) {
            return HashedWheelTimer.builder().name("audit-timer").ticker(ticker).build();
        }
    }

    /**
     * The application's own timers, declared as HashedWheelTimer: the auto-configured one backs
     * off.
     */
    @Configuration(proxyBeanMethods = false)
    static class OwnTimersConfig {

        @Bean(destroyMethod = "stop")
        HashedWheelTimer fastTimer(ManualTicker ticker) {
            return HashedWheelTimer.builder()
                    .name("fast")
                    .tickDuration(Duration.ofMillis(10))
                    .ticker(ticker)
                    .build();
        }

        @Bean(destroyMethod = "stop")
        HashedWheelTimer slowTimer(ManualTicker ticker) {
            return HashedWheelTimer.builder()
                    .name("slow")
                    .tickDuration(Duration.ofSeconds(1))
                    .ticker(ticker)
                    .build();
        }
    }

    /** The application's own timer declared the Netty way, as the {@link Timer} interface. */
    @Configuration(proxyBeanMethods = false)
    static class TimerTypedConfig {

        @Bean(destroyMethod = "stop")
        Timer nettyStyleTimer(ManualTicker ticker) {
            return HashedWheelTimer.builder().name("netty-style").ticker(ticker).build();
        }
    }

    /** A prototype-scoped timer bean: a new timer for each injection point that asks for one. */
    @Configuration(proxyBeanMethods = false)
    static class PrototypeTimerConfig {

        final AtomicInteger created = new AtomicInteger();

        @Bean(defaultCandidate = false)
        @Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
        HashedWheelTimer perUseTimer(ManualTicker ticker) {
            created.incrementAndGet();
            return HashedWheelTimer.builder().name("per-use").ticker(ticker).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MeterRegistryConfig {

        @Bean
        SimpleMeterRegistry simpleMeterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    /** With none of the optional libraries on the class path: the timer alone. */
    @Nested
    class NothingOptional {

        @Test
        void worksInAPlainApplicationWithoutMicrometerActuatorOrHealth() {
            runner.withClassLoader(new FilteredClassLoader(MICROMETER, ACTUATOR, HEALTH))
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context)
                                .hasSingleBean(HashedWheelTimer.class)
                                .hasBean("wheelTimer");
                        assertThat(context.getBean(Timer.class)).isSameAs(context.getBean("wheelTimer"));
                        assertThat(context)
                                .doesNotHaveBean("wheelTimerMeterBinder")
                                .doesNotHaveBean("wheelTimerEndpoint")
                                .doesNotHaveBean("wheelTimerHealthContributor");
                        assertThat(context.getBeansOfType(WheelTimerMeterBinder.class))
                                .isEmpty();
                        assertThat(context.getBeansOfType(WheelTimerEndpoint.class))
                                .isEmpty();
                        assertThat(context.getBeansOfType(WheelTimerHealthIndicator.class))
                                .isEmpty();
                        assertRunsOnTheManualTicker(context, context.getBean("wheelTimer", HashedWheelTimer.class));
                    });
        }
    }

    /** With Micrometer but neither the actuator nor spring-boot-health. */
    @Nested
    class MicrometerAlone {

        @Test
        void micrometerAloneRegistersTheMetersForEveryTimerBean() {
            runner.withClassLoader(new FilteredClassLoader(ACTUATOR, HEALTH))
                    .withConfiguration(AutoConfigurations.of(
                            MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
                    .withUserConfiguration(MeterRegistryConfig.class, SecondTimerConfig.class)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context)
                                .hasSingleBean(WheelTimerMeterBinder.class)
                                .doesNotHaveBean("wheelTimerEndpoint")
                                .doesNotHaveBean("wheelTimerHealthContributor");
                        MeterRegistry registry = context.getBean(MeterRegistry.class);
                        assertMeters(registry, "wheelTimer");
                        assertMeters(registry, "auditTimer");

                        HashedWheelTimer wheelTimer = context.getBean("wheelTimer", HashedWheelTimer.class);
                        HashedWheelTimer auditTimer = context.getBean("auditTimer", HashedWheelTimer.class);
                        ManualTicker ticker = context.getBean(ManualTicker.class);
                        wheelTimer.newTimeout(new NamedTask("a"), Duration.ofSeconds(1));
                        wheelTimer.newTimeout(
                                timeout -> {
                                    throw new IllegalStateException("on purpose");
                                },
                                Duration.ofSeconds(1));
                        wheelTimer
                                .newTimeout(new NamedTask("b"), Duration.ofMinutes(1))
                                .cancel();
                        auditTimer.newTimeout(new NamedTask("c"), Duration.ofMinutes(1));
                        assertThat(gauge(registry, "wheel.timer.pending", "wheelTimer"))
                                .isEqualTo(2);
                        ticker.advance(Duration.ofSeconds(1));

                        assertThat(counter(registry, "wheel.timer.scheduled", "wheelTimer"))
                                .isEqualTo(3);
                        assertThat(counter(registry, "wheel.timer.expired", "wheelTimer"))
                                .isEqualTo(2);
                        assertThat(counter(registry, "wheel.timer.failed", "wheelTimer"))
                                .isEqualTo(1);
                        assertThat(counter(registry, "wheel.timer.cancelled", "wheelTimer"))
                                .isEqualTo(1);
                        assertThat(counter(registry, "wheel.timer.rejected", "wheelTimer"))
                                .isZero();
                        assertThat(gauge(registry, "wheel.timer.pending", "wheelTimer"))
                                .isZero();
                        assertThat(registry.get("wheel.timer.tick.lag")
                                        .tag("name", "wheelTimer")
                                        .timeGauge()
                                        .value(TimeUnit.SECONDS))
                                .isZero();
                        assertThat(counter(registry, "wheel.timer.scheduled", "auditTimer"))
                                .isEqualTo(1);
                        assertThat(gauge(registry, "wheel.timer.pending", "auditTimer"))
                                .isEqualTo(1);
                    });
        }

        @Test
        void micrometerCoversTheApplicationsOwnTimersByBeanName() {
            runner.withClassLoader(new FilteredClassLoader(ACTUATOR, HEALTH))
                    .withConfiguration(AutoConfigurations.of(
                            MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
                    .withUserConfiguration(MeterRegistryConfig.class, OwnTimersConfig.class)
                    .run(context -> {
                        assertThat(context).hasNotFailed().doesNotHaveBean("wheelTimer");
                        MeterRegistry registry = context.getBean(MeterRegistry.class);
                        assertMeters(registry, "fastTimer");
                        assertMeters(registry, "slowTimer");
                        assertThat(registry.find("wheel.timer.pending").gauges())
                                .hasSize(2);
                        context.getBean("slowTimer", HashedWheelTimer.class)
                                .newTimeout(new NamedTask("s"), Duration.ofMinutes(1));
                        assertThat(gauge(registry, "wheel.timer.pending", "slowTimer"))
                                .isEqualTo(1);
                        assertThat(gauge(registry, "wheel.timer.pending", "fastTimer"))
                                .isZero();
                    });
        }

        /**
         * The meters exist when a MeterRegistry bean exists. Here the application has a
         * MeterRegistry bean of its own but not Boot's metrics auto-configuration (which is what binds
         * MeterBinder beans).
         */
        @Test
        void micrometerWithAMeterRegistryBeanButWithoutBootsMetricsAutoConfiguration() {
            runner.withClassLoader(new FilteredClassLoader(ACTUATOR, HEALTH))
                    .withUserConfiguration(MeterRegistryConfig.class)
                    .run(context -> {
                        assertThat(context).hasNotFailed().hasSingleBean(WheelTimerMeterBinder.class);
                        assertMeters(context.getBean(MeterRegistry.class), "wheelTimer");
                    });
        }
    }

    /** With the actuator but neither Micrometer nor spring-boot-health. */
    @Nested
    class ActuatorAlone {

        @Test
        void actuatorAloneProvidesTheEndpointForEveryTimerBean() {
            runner.withClassLoader(new FilteredClassLoader(MICROMETER, HEALTH))
                    .withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class))
                    .withUserConfiguration(SecondTimerConfig.class)
                    .withPropertyValues("management.endpoints.web.exposure.include=wheeltimer")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context)
                                .hasSingleBean(WheelTimerEndpoint.class)
                                .doesNotHaveBean("wheelTimerMeterBinder")
                                .doesNotHaveBean("wheelTimerHealthContributor");
                        WheelTimerEndpoint endpoint = context.getBean(WheelTimerEndpoint.class);
                        assertThat(endpoint.timers().timers()).containsOnlyKeys("wheelTimer", "auditTimer");
                        assertThat(endpoint.timer("nope").getStatus()).isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND);
                        HashedWheelTimer wheelTimer = context.getBean("wheelTimer", HashedWheelTimer.class);
                        wheelTimer.newTimeout(new NamedTask("x"), Duration.ofSeconds(3));
                        assertThat(endpoint.timer("wheelTimer").getBody())
                                .isInstanceOfSatisfying(WheelTimerEndpoint.TimerDetailDescriptor.class, detail -> {
                                    assertThat(detail.pending()).isEqualTo(1L);
                                    assertThat(detail.upcoming())
                                            .containsExactly(new WheelTimerEndpoint.UpcomingTimeout("x", "PT3S"));
                                });
                        assertThat(endpoint.stop("nope").getStatus()).isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND);
                        WebEndpointResponse<Object> stopped = endpoint.stop("auditTimer");
                        assertThat(stopped.getStatus()).isEqualTo(200);
                        assertThat(stopped.getBody())
                                .isEqualTo(new WheelTimerEndpoint.StoppedDescriptor("auditTimer", "SHUTDOWN", 0));
                    });
        }

        /**
         * The detail read asks the worker for the upcoming timeouts and waits, without a bound, while a
         * task runs on the worker: a stuck task (what one would open the endpoint to diagnose) makes
         * {@code GET /actuator/wheeltimer/{name}} hang and hold a request thread for as long.
         */
        @Test
        void theDetailAnswersWhileATaskIsStuckOnTheWorker() {
            runner.withClassLoader(new FilteredClassLoader(MICROMETER, HEALTH))
                    .withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class))
                    .withPropertyValues("management.endpoints.web.exposure.include=wheeltimer")
                    .run(context -> {
                        WheelTimerEndpoint endpoint = context.getBean(WheelTimerEndpoint.class);
                        HashedWheelTimer timer = context.getBean("wheelTimer", HashedWheelTimer.class);
                        try (StuckWorker stuck = new StuckWorker(timer)) {
                            timer.newTimeout(new NamedTask("next"), Duration.ofMinutes(1));
                            stuck.fire(context.getBean(ManualTicker.class));
                            Future<Object> detail = stuck.threads.submit(
                                    () -> endpoint.timer("wheelTimer").getBody());
                            assertThat(detail)
                                    .succeedsWithin(Duration.ofSeconds(30))
                                    .isInstanceOfSatisfying(WheelTimerEndpoint.TimerDetailDescriptor.class, d -> {
                                        assertThat(d.state()).isEqualTo("STARTED");
                                        assertThat(d.upcoming()).isEmpty();
                                        assertThat(d.upcomingUnavailable()).isNotBlank();
                                    });
                            stuck.release();
                        }
                    });
        }

        @Test
        void theEndpointIsNotCreatedWithAccessNone() {
            runner.withClassLoader(new FilteredClassLoader(MICROMETER, HEALTH))
                    .withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class))
                    // Upper case: a runner's environment has no relaxed enum conversion.
                    .withPropertyValues(
                            "management.endpoints.web.exposure.include=wheeltimer",
                            "management.endpoint.wheeltimer.access=NONE")
                    .run(theTimerWithout(WheelTimerEndpoint.class));
        }

        @Test
        void theEndpointIsNotCreatedWhenItIsNotExposed() {
            runner.withClassLoader(new FilteredClassLoader(MICROMETER, HEALTH))
                    .withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class))
                    .run(theTimerWithout(WheelTimerEndpoint.class));
        }
    }

    /** With spring-boot-health but neither Micrometer nor the actuator. */
    @Nested
    class HealthAlone {

        @Test
        void healthAloneProvidesTheIndicatorForEveryTimerBean() {
            runner.withClassLoader(new FilteredClassLoader(MICROMETER, ACTUATOR))
                    .withUserConfiguration(SecondTimerConfig.class)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context)
                                .hasBean("wheelTimerHealthContributor")
                                .doesNotHaveBean("wheelTimerMeterBinder")
                                .doesNotHaveBean("wheelTimerEndpoint");
                        // Two timers: a composite with one indicator per bean name.
                        CompositeHealthContributor composite =
                                context.getBean("wheelTimerHealthContributor", CompositeHealthContributor.class);
                        assertThat(composite.stream().map(HealthContributors.Entry::name))
                                .containsExactlyInAnyOrder("wheelTimer", "auditTimer");
                        Health up = ((HealthIndicator) composite.getContributor("wheelTimer")).health(true);
                        assertThat(up.getStatus()).isEqualTo(Status.UP);
                        assertThat(up.getDetails())
                                .isEqualTo(Map.of(
                                        "wheelTimer", Map.of("state", "INIT", "pending", 0L, "tickLag", "PT0S")));

                        context.getBean("auditTimer", HashedWheelTimer.class).stop();
                        Health down = ((HealthIndicator) composite.getContributor("auditTimer")).health(true);
                        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(down.getDetails())
                                .isEqualTo(Map.of(
                                        "auditTimer", Map.of("state", "SHUTDOWN", "pending", 0L, "tickLag", "PT0S")));
                    });
        }

        @Test
        void oneTimerIsTheWheelTimerIndicatorItself() {
            runner.withClassLoader(new FilteredClassLoader(MICROMETER, ACTUATOR))
                    .run(context -> {
                        assertThat(context.getBean("wheelTimerHealthContributor"))
                                .isInstanceOf(WheelTimerHealthIndicator.class);
                        Health up =
                                context.getBean(WheelTimerHealthIndicator.class).health(true);
                        assertThat(up.getStatus()).isEqualTo(Status.UP);
                        assertThat(up.getDetails()).containsOnlyKeys("wheelTimer");
                    });
        }

        @Test
        void healthIsDownWhileTheWorkerLagsByMoreThanAHundredTicks() {
            runner.withClassLoader(new FilteredClassLoader(MICROMETER, ACTUATOR))
                    .run(context -> {
                        WheelTimerHealthIndicator indicator = context.getBean(WheelTimerHealthIndicator.class);
                        HashedWheelTimer timer = context.getBean("wheelTimer", HashedWheelTimer.class);
                        ManualTicker ticker = context.getBean(ManualTicker.class);
                        try (StuckWorker stuck = new StuckWorker(timer)) {
                            // The first advance fires the blocking task; the worker then cannot follow the second.
                            stuck.fire(ticker);
                            Future<?> second = stuck.threads.submit(() -> ticker.advance(Duration.ofSeconds(50)));
                            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                            while (ticker.nanoTime() < TimeUnit.SECONDS.toNanos(50) && System.nanoTime() < deadline) {
                                Thread.sleep(5);
                            }
                            Health lagging = indicator.health(true);
                            assertThat(lagging.getStatus()).as("%s", lagging).isEqualTo(Status.DOWN);
                            @SuppressWarnings("unchecked")
                            Map<String, Object> detail =
                                    (Map<String, Object>) lagging.getDetails().get("wheelTimer");
                            assertThat(Duration.parse((String) detail.get("tickLag")))
                                    .isGreaterThan(Duration.ofSeconds(10));
                            assertThat(detail.get("state")).isEqualTo("STARTED");

                            stuck.release();
                            second.get(60, TimeUnit.SECONDS);
                            Health caughtUp = indicator.health(true);
                            assertThat(caughtUp.getStatus()).as("%s", caughtUp).isEqualTo(Status.UP);
                        }
                    });
        }

        @Test
        void healthCanBeTurnedOff() {
            runner.withClassLoader(new FilteredClassLoader(MICROMETER, ACTUATOR))
                    .withPropertyValues("management.health.wheeltimer.enabled=false")
                    .run(theTimerWithout(WheelTimerHealthIndicator.class));
        }

        /**
         * The endpoint, the health indicator and the meter binder look timers up with {@code
         * getBeansOfType(HashedWheelTimer.class)}, which also creates a new instance of every
         * prototype-scoped timer bean on each call: every health check (a liveness probe every few
         * seconds) and every GET of the endpoint builds a new HashedWheelTimer that is never stopped.
         */
        @Test
        void lookingAtTheTimersCreatesNoTimer() {
            runner.withClassLoader(new FilteredClassLoader(MICROMETER))
                    .withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class))
                    .withUserConfiguration(PrototypeTimerConfig.class)
                    .withPropertyValues("management.endpoints.web.exposure.include=wheeltimer")
                    .run(context -> {
                        assertThat(context).hasNotFailed().hasBean("wheelTimer");
                        AtomicInteger created = context.getBean(PrototypeTimerConfig.class).created;
                        int atStartup = created.get();
                        HealthContributor health =
                                context.getBean("wheelTimerHealthContributor", HealthContributor.class);
                        WheelTimerEndpoint endpoint = context.getBean(WheelTimerEndpoint.class);
                        for (int i = 0; i < 3; i++) {
                            checkAll(health);
                            endpoint.timers();
                        }
                        assertThat(created)
                                .as("prototype timers created by 3 health checks and 3 GETs")
                                .hasValue(atStartup);
                    });
        }
    }

    /** With every optional library, and a timer bean declared as the Timer interface. */
    @Nested
    class EverythingWithATimerDeclaredAsTimer {

        /**
         * Every HashedWheelTimer bean in the context, auto-configured or not, is covered by the
         * metrics, the endpoint and the health indicator. A timer declared the Netty way, {@code @Bean
         * Timer timer() { return new HashedWheelTimer(...); }}, makes the auto-configured one back off and
         * then is covered by nothing.
         */
        @Test
        void aTimerDeclaredAsTheTimerInterfaceIsStillCovered() {
            runner.withConfiguration(AutoConfigurations.of(
                            MetricsAutoConfiguration.class,
                            CompositeMeterRegistryAutoConfiguration.class,
                            EndpointAutoConfiguration.class))
                    .withUserConfiguration(MeterRegistryConfig.class, TimerTypedConfig.class)
                    .withPropertyValues("management.endpoints.web.exposure.include=wheeltimer")
                    .run(context -> {
                        assertThat(context).hasNotFailed().doesNotHaveBean("wheelTimer");
                        assertThat(context)
                                .hasSingleBean(WheelTimerMeterBinder.class)
                                .hasSingleBean(WheelTimerEndpoint.class)
                                .hasSingleBean(WheelTimerHealthIndicator.class);
                        assertMeters(context.getBean(MeterRegistry.class), "nettyStyleTimer");
                        assertThat(context.getBean(WheelTimerEndpoint.class)
                                        .timers()
                                        .timers())
                                .containsOnlyKeys("nettyStyleTimer");
                    });
        }
    }

    // --- helpers ------------------------------------------------------------------------------

    /**
     * A task that holds the timer's worker until released, fired by an advance of the ticker on a
     * thread of its own; closing it releases the task and stops the threads.
     */
    private static final class StuckWorker implements AutoCloseable {
        /** For the advances, and for what a test does while the worker is held. */
        final ExecutorService threads = Executors.newFixedThreadPool(2);

        private final CountDownLatch running = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private Future<?> firing;

        /** Schedules the task 100 ms ahead. */
        StuckWorker(HashedWheelTimer timer) {
            timer.newTimeout(
                    timeout -> {
                        running.countDown();
                        release.await(60, TimeUnit.SECONDS);
                    },
                    Duration.ofMillis(100));
        }

        /** Advances {@code ticker} by 100 ms on another thread, and waits until the task holds the worker. */
        void fire(ManualTicker ticker) throws InterruptedException {
            firing = threads.submit(() -> ticker.advance(Duration.ofMillis(100)));
            assertThat(running.await(60, TimeUnit.SECONDS)).isTrue();
        }

        /** Lets the task end, and waits until the advance that fired it returned. */
        void release() throws Exception {
            release.countDown();
            firing.get(60, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            release.countDown();
            threads.shutdownNow();
        }
    }

    /** The context started, with the timer and without a bean of {@code type}. */
    private static ContextConsumer<AssertableApplicationContext> theTimerWithout(Class<?> type) {
        return context ->
                assertThat(context).hasNotFailed().hasBean("wheelTimer").doesNotHaveBean(type);
    }

    private static void checkAll(HealthContributor contributor) {
        if (contributor instanceof HealthIndicator indicator) {
            indicator.health(true);
        } else if (contributor instanceof CompositeHealthContributor composite) {
            composite.stream().forEach(entry -> checkAll(entry.contributor()));
        }
    }

    private static void assertRunsOnTheManualTicker(AssertableApplicationContext context, HashedWheelTimer timer) {
        ManualTicker ticker = context.getBean(ManualTicker.class);
        NamedTask task = new NamedTask("plain");
        timer.newTimeout(task, Duration.ofSeconds(5));
        ticker.advance(Duration.ofMillis(4900));
        assertThat(task.runs).hasValue(0);
        ticker.advance(Duration.ofMillis(100));
        assertThat(task.runs).hasValue(1);
        assertThat(timer.stats().expired()).isEqualTo(1);
    }

    private static void assertMeters(MeterRegistry registry, String name) {
        for (String meter : METERS) {
            assertThat(registry.find(meter).tag("name", name).meter())
                    .as("%s{name=%s}", meter, name)
                    .isNotNull();
        }
        assertThat(registry.get("wheel.timer.pending").tag("name", name).meter())
                .isInstanceOf(Gauge.class);
        assertThat(registry.get("wheel.timer.pending")
                        .tag("name", name)
                        .meter()
                        .getId()
                        .getBaseUnit())
                .isEqualTo("timeouts");
        for (String counter : List.of("scheduled", "expired", "cancelled", "rejected")) {
            var meter = registry.get("wheel.timer." + counter).tag("name", name).meter();
            assertThat(meter).as(counter).isInstanceOf(FunctionCounter.class);
            assertThat(meter.getId().getBaseUnit()).as(counter).isEqualTo("timeouts");
        }
        var failed = registry.get("wheel.timer.failed").tag("name", name).meter();
        assertThat(failed).isInstanceOf(FunctionCounter.class);
        assertThat(failed.getId().getBaseUnit()).isEqualTo("tasks");
        var lag = registry.get("wheel.timer.tick.lag").tag("name", name).meter();
        assertThat(lag).isInstanceOf(TimeGauge.class);
        assertThat(lag.getId().getBaseUnit()).isEqualTo("seconds");
    }

    private static double counter(MeterRegistry registry, String meter, String name) {
        return registry.get(meter).tag("name", name).functionCounter().count();
    }

    private static double gauge(MeterRegistry registry, String meter, String name) {
        return registry.get(meter).tag("name", name).gauge().value();
    }
}
