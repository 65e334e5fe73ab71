package io.wheeltimer.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.netty.NettyTimer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Lettuce on the wheel, against a real {@code redis-server} (one for the class, on a free loopback
 * port): a command timeout fires on the wheel and Lettuce has no timer thread of its own; with
 * {@code wheel-timer.lettuce.enabled=false} Lettuce's own timer is back.
 */
@ExtendWith(OutputCaptureExtension.class)
class WheelTimerLettuceTest {

    private static final byte[] KEY = "wheel-timer-lettuce-test".getBytes(StandardCharsets.UTF_8);

    private static RedisServer redis;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    WheelTimerAutoConfiguration.class,
                    WheelTimerLettuceAutoConfiguration.class,
                    DataRedisAutoConfiguration.class))
            .withPropertyValues(
                    "spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + redis.port(),
                    // Generous, for the connection's set-up on a loaded machine; the paused command's is short.
                    "spring.data.redis.timeout=10s",
                    "wheel-timer.tick-duration=10ms");

    @BeforeAll
    static void startRedis() throws Exception {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        redis.close();
    }

    /** A Lettuce timer of an earlier test's context stops with it; none may be left to confuse the checks. */
    @BeforeEach
    void noLettuceTimerThreadLeft() {
        await().atMost(Duration.ofSeconds(30)).until(() -> lettuceTimerThreads().isEmpty());
    }

    /**
     * The asynchronous API does not wait for the reply: only Lettuce's timer can fail the command,
     * so its timeout exception shows that the timer fired; the wheel counts it as expired.
     */
    @Test
    void aCommandAgainstAPausedServerTimesOutThroughTheWheelAndLettuceHasNoTimerThread() {
        runner.run(context -> {
            assertThat(context.getBean(ClientResources.class).timer())
                    .isNotInstanceOf(io.netty.util.HashedWheelTimer.class)
                    .asString()
                    .contains("NettyTimer(HashedWheelTimer(wheel-timer");
            HashedWheelTimer wheel = context.getBean(HashedWheelTimer.class);
            try (RedisConnection connection = connection(context)) {
                RedisAsyncCommands<byte[], byte[]> commands = asyncCommands(connection);
                assertThat(commands.set(KEY, KEY).get(30, TimeUnit.SECONDS)).isEqualTo("OK");
                commands.getStatefulConnection().setTimeout(Duration.ofMillis(500)); // the command timeout
                long expired = wheel.stats().expired();
                long scheduled = wheel.stats().scheduled();

                assertThat(redis.command("CLIENT", "PAUSE", "5000")).isEqualTo("+OK");
                RedisFuture<byte[]> paused = commands.get(KEY);

                assertThatThrownBy(() -> paused.get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .cause()
                        .isInstanceOf(RedisCommandTimeoutException.class)
                        .hasMessageContaining("500 millisecond");
                assertThat(wheel.stats().scheduled()).isGreaterThan(scheduled);
                assertThat(wheel.stats().expired()).isGreaterThan(expired);
                assertThat(lettuceTimerThreads()).isEmpty();
            } finally {
                assertThat(redis.command("PING")).as("after the pause").isEqualTo("+PONG");
            }
        });
    }

    @Test
    void withTheSwitchOffLettucesOwnTimerIsBack() {
        runner.withPropertyValues("wheel-timer.lettuce.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(ClientResourcesBuilderCustomizer.class);
            assertThat(context.getBean(ClientResources.class).timer())
                    .isInstanceOf(io.netty.util.HashedWheelTimer.class);
            HashedWheelTimer wheel = context.getBean(HashedWheelTimer.class);
            context.getBean(StringRedisTemplate.class).opsForValue().set("switched-off", "yes");

            assertThat(lettuceTimerThreads()).isNotEmpty();
            assertThat(wheel.stats().scheduled()).as("nothing on the wheel").isZero();
        });
        await().atMost(Duration.ofSeconds(30))
                .alias("Lettuce stops its own timer with the context")
                .until(() -> lettuceTimerThreads().isEmpty());
    }

    /**
     * The wheel stops as soon as the context starts closing, Lettuce's connections only later (a
     * web server's graceful shutdown comes in between): commands still go through meanwhile.
     */
    @Test
    void afterTheWheelStoppedCommandsGoWithoutAClientSideTimeout(CapturedOutput output) {
        runner.run(context -> {
            StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
            template.opsForValue().set("before-stop", "1");

            context.getBean(HashedWheelTimer.class).stop();

            template.opsForValue().set("after-stop", "2");
            assertThat(template.opsForValue().get("after-stop")).isEqualTo("2");
            assertThat(output).containsOnlyOnce("Lettuce's commands go without a client-side timeout");
        });
    }

    @Test
    void withoutWheelTimerNettyLettuceKeepsItsOwnTimer() {
        runner.withClassLoader(new FilteredClassLoader(NettyTimer.class)).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(ClientResourcesBuilderCustomizer.class);
            assertThat(context.getBean(ClientResources.class).timer())
                    .isInstanceOf(io.netty.util.HashedWheelTimer.class);
        });
    }

    @Test
    void withoutLettuceNothingIsContributed() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        WheelTimerAutoConfiguration.class, WheelTimerLettuceAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader(ClientResources.class))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasBean("wheelTimer")
                        .doesNotHaveBean("wheelTimerClientResourcesCustomizer"));
    }

    @Test
    void wheelTimerEnabledFalseTurnsItOffToo() {
        runner.withPropertyValues("wheel-timer.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ClientResourcesBuilderCustomizer.class));
    }

    private static RedisConnection connection(AssertableApplicationContext context) {
        return context.getBean(LettuceConnectionFactory.class).getConnection();
    }

    @SuppressWarnings("unchecked")
    private static RedisAsyncCommands<byte[], byte[]> asyncCommands(RedisConnection connection) {
        return (RedisAsyncCommands<byte[], byte[]>) ((LettuceConnection) connection).getNativeConnection();
    }

    private static List<String> lettuceTimerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(name -> name.startsWith("lettuce-timer"))
                .toList();
    }
}
