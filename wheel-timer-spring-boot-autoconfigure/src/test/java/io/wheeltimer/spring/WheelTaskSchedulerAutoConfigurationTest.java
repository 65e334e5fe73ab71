package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timer;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ConcurrentTaskExecutor;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The auto-configured {@code wheelTaskScheduler}: on the timer, on {@code @WheelTimeout}'s executor,
 * with the ticker's clock; and Boot's {@code taskScheduler} and {@code @Scheduled} as they were.
 */
class WheelTaskSchedulerAutoConfigurationTest {

    private static final String WORKER = "test-wheel";

    /** Boot's task execution and scheduling included, as in an application. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    WheelTimerAutoConfiguration.class,
                    WheelTaskSchedulerAutoConfiguration.class,
                    TaskExecutionAutoConfiguration.class,
                    TaskSchedulingAutoConfiguration.class))
            .withPropertyValues(
                    "wheel-timer.thread-name=" + WORKER, "spring.task.execution.thread-name-prefix=app-task-")
            .withBean(ManualTicker.class, ManualTicker::new);

    @Test
    void providesAWheelTaskSchedulerOnTheTimerThatRunsTasksOnApplicationTaskExecutor() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(WheelTaskScheduler.class).hasBean("wheelTaskScheduler");
            WheelTaskScheduler scheduler = scheduler(context);
            assertThat(scheduler.getExecutor()).isSameAs(context.getBean("applicationTaskExecutor"));

            assertThat(threadOfOneRun(context)).startsWith("app-task-").isNotEqualTo(WORKER);
            assertThat(context.getBean(HashedWheelTimer.class).stats().expired())
                    .as("on the wheel")
                    .isEqualTo(1);
        });
    }

    @Test
    void theExecutorOfTheAnnotationPropertyRunsTheTasks() {
        runner.withBean(
                        "propertyExecutor",
                        Executor.class,
                        () -> new ConcurrentTaskExecutor(
                                Executors.newCachedThreadPool(new CustomizableThreadFactory("property-"))))
                .withPropertyValues("wheel-timer.annotation.executor=propertyExecutor")
                .run(context -> {
                    assertThat(scheduler(context).getExecutor()).isSameAs(context.getBean("propertyExecutor"));
                    assertThat(threadOfOneRun(context)).startsWith("property-");
                });
    }

    @Test
    void withoutThatExecutorBeanAnExecutorOfItsOwnRunsThem() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        WheelTimerAutoConfiguration.class, WheelTaskSchedulerAutoConfiguration.class))
                .withPropertyValues("wheel-timer.thread-name=" + WORKER)
                .withBean(ManualTicker.class, ManualTicker::new)
                .run(context -> {
                    assertThat(context).doesNotHaveBean("applicationTaskExecutor");
                    assertThat(threadOfOneRun(context)).startsWith("wheel-task-");
                });
    }

    @Test
    void theClockFollowsTheTickerBean() {
        runner.run(context -> {
            Instant before = scheduler(context).getClock().instant();
            context.getBean(ManualTicker.class).advance(Duration.ofMinutes(5));
            assertThat(scheduler(context).getClock().instant()).isEqualTo(before.plus(Duration.ofMinutes(5)));
        });
    }

    /**
     * With {@code @EnableScheduling}, Boot still creates its {@code taskScheduler}. Beside it, this
     * one's own type and its name get this one; a plain {@code TaskScheduler}, a lookup by type
     * (as {@code @Scheduled}'s) and the {@code @Scheduled} methods get Boot's.
     */
    @Test
    void withBootsTaskSchedulerItsTypeAndNameGetItAndAPlainTaskSchedulerGetsBoots() {
        runner.withUserConfiguration(ScheduledJobs.class)
                .withBean(SchedulerFields.class)
                .run(context -> {
                    Object bootsScheduler = context.getBean("taskScheduler");
                    assertThat(bootsScheduler).isInstanceOf(ThreadPoolTaskScheduler.class);
                    SchedulerFields fields = context.getBean(SchedulerFields.class);
                    assertThat(fields.byType).isSameAs(scheduler(context));
                    assertThat(fields.byName).isSameAs(scheduler(context));
                    assertThat(fields.plain).isSameAs(bootsScheduler);
                    assertThat(fields.provider.getIfUnique()).isSameAs(bootsScheduler);
                    assertThat(context.getBean(TaskScheduler.class)).isSameAs(bootsScheduler);
                    assertThat(context.getBean(ScheduledJobs.class).injected).isSameAs(bootsScheduler);

                    assertScheduledMethodsRunOnThreadsNamed(context, "scheduling-");
                });
    }

    /** Without {@code @EnableScheduling} Boot makes no {@code taskScheduler}: this one is the only one. */
    @Test
    void withoutAnotherTaskSchedulerEveryInjectionPointGetsIt() {
        runner.withBean(SchedulerFields.class).run(context -> {
            assertThat(context).doesNotHaveBean("taskScheduler");
            SchedulerFields fields = context.getBean(SchedulerFields.class);
            assertThat(fields.byType).isSameAs(scheduler(context));
            assertThat(fields.byName).isSameAs(scheduler(context));
            assertThat(fields.plain).isSameAs(scheduler(context));
            assertThat(fields.provider.getIfUnique()).isSameAs(scheduler(context));
        });
    }

    /** Boot backs off for the application's own scheduler; that one, not this, is the default. */
    @Test
    void theApplicationsOwnTaskSchedulerWinsPlainInjectionAndScheduledMethods() {
        runner.withUserConfiguration(ScheduledJobs.class)
                .withBean(SchedulerFields.class)
                .withBean("myScheduler", TaskScheduler.class, () -> {
                    ThreadPoolTaskScheduler mine = new ThreadPoolTaskScheduler();
                    mine.setThreadNamePrefix("mine-");
                    return mine;
                })
                .run(context -> {
                    assertThat(context).doesNotHaveBean("taskScheduler");
                    SchedulerFields fields = context.getBean(SchedulerFields.class);
                    assertThat(fields.byType).isSameAs(scheduler(context));
                    assertThat(fields.plain).isSameAs(context.getBean("myScheduler"));

                    assertScheduledMethodsRunOnThreadsNamed(context, "mine-");
                });
    }

    @Test
    void itIsInjectedByItsName() {
        runner.withBean(Heartbeats.class).run(context -> {
            assertThat(context.getBean(Heartbeats.class).scheduler).isSameAs(scheduler(context));
        });
    }

    @Test
    void backsOffForABeanOfThatName() {
        runner.withBean("wheelTaskScheduler", TaskScheduler.class, ThreadPoolTaskScheduler::new)
                .run(context -> assertThat(context).doesNotHaveBean(WheelTaskScheduler.class));
    }

    @Test
    void usesTheApplicationsOwnTimer() {
        runner.withBean(
                        "myTimer",
                        Timer.class,
                        () -> HashedWheelTimer.builder().name("my-timer").build())
                .run(context -> {
                    assertThat(context).doesNotHaveBean("wheelTimer");
                    assertThat(scheduler(context).timer).isSameAs(context.getBean("myTimer"));
                });
    }

    @Test
    void enabledFalseTurnsItOffWithTheTimer() {
        runner.withPropertyValues("wheel-timer.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(WheelTaskScheduler.class));
    }

    @Test
    void closingTheContextCancelsTheRepeatedTasks() {
        List<ScheduledFuture<?>> futures = new CopyOnWriteArrayList<>();
        runner.run(context -> {
            WheelTaskScheduler scheduler = scheduler(context);
            futures.add(scheduler.scheduleAtFixedRate(() -> {}, Duration.ofSeconds(1)));
            futures.add(
                    scheduler.schedule(() -> {}, scheduler.getClock().instant().plusSeconds(60)));
        });
        assertThat(futures)
                .allSatisfy(future -> assertThat(future.isCancelled()).isTrue());
    }

    private static WheelTaskScheduler scheduler(AssertableApplicationContext context) {
        return context.getBean("wheelTaskScheduler", WheelTaskScheduler.class);
    }

    /** Schedules one task a second ahead, moves the ticker there, and returns the run's thread. */
    private static String threadOfOneRun(AssertableApplicationContext context) throws Exception {
        WheelTaskScheduler scheduler = scheduler(context);
        List<String> threads = new CopyOnWriteArrayList<>();
        ScheduledFuture<?> future = scheduler.schedule(
                () -> threads.add(Thread.currentThread().getName()),
                scheduler.getClock().instant().plusSeconds(1));
        context.getBean(ManualTicker.class).advance(Duration.ofSeconds(1));
        future.get(30, TimeUnit.SECONDS);
        assertThat(threads).hasSize(1);
        return threads.get(0);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class ScheduledJobs {

        final List<String> threads = new CopyOnWriteArrayList<>();
        final TaskScheduler injected;

        ScheduledJobs(TaskScheduler injected) {
            this.injected = injected;
        }

        @Scheduled(fixedDelay = 20)
        void tick() {
            threads.add(Thread.currentThread().getName());
        }
    }

    /** The injection points an application writes, as fields. */
    static class SchedulerFields {

        @Autowired
        WheelTaskScheduler byType;

        @Autowired
        @Qualifier("wheelTaskScheduler")
        TaskScheduler byName;

        @Autowired
        TaskScheduler plain;

        /** As where Boot's integrations look for a scheduler: an injected provider. */
        @Autowired
        ObjectProvider<TaskScheduler> provider;
    }

    static class Heartbeats {

        final TaskScheduler scheduler;

        Heartbeats(@Qualifier("wheelTaskScheduler") TaskScheduler scheduler) {
            this.scheduler = scheduler;
        }
    }

    /** Waits for two runs of the {@code @Scheduled} methods, and asserts where they ran. */
    private static void assertScheduledMethodsRunOnThreadsNamed(ApplicationContext context, String prefix) {
        ScheduledJobs jobs = context.getBean(ScheduledJobs.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> jobs.threads.size() >= 2);
        assertThat(jobs.threads).allSatisfy(thread -> assertThat(thread).startsWith(prefix));
    }
}
