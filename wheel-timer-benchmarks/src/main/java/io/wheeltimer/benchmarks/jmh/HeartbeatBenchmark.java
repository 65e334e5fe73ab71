package io.wheeltimer.benchmarks.jmh;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.spring.WheelTaskScheduler;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The SockJS heartbeat pattern: 10,000 sessions, each holding a heartbeat due 25 s ahead; every message
 * on a session (a random one here) cancels its heartbeat and schedules a new one, exactly as Spring's
 * SockJS sessions do: {@code future.cancel(false)}, then {@code schedule(new task, Instant.now() + 25 s)}.
 *
 * <p>Contenders: {@link WheelTaskScheduler} on a {@link HashedWheelTimer} with the starter's defaults,
 * and Spring's {@link ThreadPoolTaskScheduler} configured as Spring configures its default SockJS
 * scheduler (remove-on-cancel on), with one thread and with as many threads as the machine has CPUs.
 * The benchmark threads are the threads the messages arrive on; they share the 10,000 sessions out.
 * No heartbeat comes due during a run.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class HeartbeatBenchmark {

    static final int SESSIONS = 10_000;
    static final long HEARTBEAT_MILLIS = 25_000;

    public enum Scheduler {
        WHEEL,
        SPRING_ONE_THREAD,
        SPRING_CPU_THREADS
    }

    @State(Scope.Benchmark)
    public static class Schedulers {

        @Param({"WHEEL", "SPRING_ONE_THREAD", "SPRING_CPU_THREADS"})
        public Scheduler scheduler;

        TaskScheduler taskScheduler;
        private HashedWheelTimer timer;
        private WheelTaskScheduler wheelScheduler;
        private ThreadPoolTaskScheduler springScheduler;

        @Setup
        public void start() {
            if (scheduler == Scheduler.WHEEL) {
                timer = HashedWheelTimer.builder().build();
                wheelScheduler = new WheelTaskScheduler(timer);
                taskScheduler = wheelScheduler;
            } else {
                springScheduler = new ThreadPoolTaskScheduler();
                springScheduler.setThreadNamePrefix("SockJS-");
                springScheduler.setPoolSize(
                        scheduler == Scheduler.SPRING_ONE_THREAD
                                ? 1
                                : Runtime.getRuntime().availableProcessors());
                springScheduler.setRemoveOnCancelPolicy(true);
                springScheduler.initialize();
                taskScheduler = springScheduler;
            }
        }

        @TearDown
        public void stop() {
            if (wheelScheduler != null) {
                wheelScheduler.close();
                timer.stop();
            }
            if (springScheduler != null) {
                springScheduler.shutdown();
            }
        }
    }

    /** A SockJS session's heartbeat: the future of the one scheduled last. */
    static final class Session {
        ScheduledFuture<?> heartbeat;
    }

    /** A heartbeat task, made anew for every re-arm, as SockJS does. */
    static final class Heartbeat implements Runnable {
        private final Session session;

        Heartbeat(Session session) {
            this.session = session;
        }

        @Override
        public void run() {
            if (session.heartbeat == null) {
                throw new IllegalStateException("a heartbeat came due during the benchmark");
            }
        }
    }

    /** This benchmark thread's share of the sessions, each with a heartbeat armed. */
    @State(Scope.Thread)
    public static class Sessions {
        Session[] sessions;

        @Setup
        public void arm(Schedulers schedulers, BenchmarkParams params) {
            sessions = new Session[SESSIONS / params.getThreads()];
            for (int i = 0; i < sessions.length; i++) {
                Session session = new Session();
                rearm(schedulers.taskScheduler, session);
                sessions[i] = session;
            }
        }

        @TearDown
        public void cancel() {
            for (Session session : sessions) {
                session.heartbeat.cancel(false);
            }
        }
    }

    static ScheduledFuture<?> rearm(TaskScheduler scheduler, Session session) {
        ScheduledFuture<?> previous = session.heartbeat;
        if (previous != null) {
            previous.cancel(false);
        }
        Instant time = Instant.now().plus(HEARTBEAT_MILLIS, ChronoUnit.MILLIS);
        session.heartbeat = scheduler.schedule(new Heartbeat(session), time);
        return session.heartbeat;
    }

    @Benchmark
    @Threads(1)
    public ScheduledFuture<?> oneThread(Schedulers schedulers, Sessions sessions) {
        Session[] all = sessions.sessions;
        return rearm(schedulers.taskScheduler, all[ThreadLocalRandom.current().nextInt(all.length)]);
    }

    @Benchmark
    @Threads(2)
    public ScheduledFuture<?> twoThreads(Schedulers schedulers, Sessions sessions) {
        Session[] all = sessions.sessions;
        return rearm(schedulers.taskScheduler, all[ThreadLocalRandom.current().nextInt(all.length)]);
    }
}
