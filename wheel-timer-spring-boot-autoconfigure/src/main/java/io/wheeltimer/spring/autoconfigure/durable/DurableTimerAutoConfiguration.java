package io.wheeltimer.spring.autoconfigure.durable;

import io.micrometer.tracing.Tracer;
import io.wheeltimer.Timer;
import io.wheeltimer.jdbc.DurableDataCodec;
import io.wheeltimer.jdbc.DurableTimeoutContext;
import io.wheeltimer.jdbc.DurableTimer;
import io.wheeltimer.jdbc.DurableTimerListener;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.spring.autoconfigure.DurableTimerBuilderCustomizer;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import java.util.Arrays;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.SearchStrategy;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;
import tools.jackson.databind.json.JsonMapper;

/**
 * Auto-configures durable timeouts when {@code wheel-timer-jdbc} is on the class path and the
 * application has one {@link DataSource} (and Boot's JDBC support, {@code spring-boot-jdbc}, which
 * {@code spring-boot-starter-jdbc} and {@code spring-boot-starter-data-jpa} bring): the
 * {@code durableTimer} bean (a {@link JdbcDurableTimer}) with a handler for every
 * {@link io.wheeltimer.jdbc.DurableTimerTask @DurableTimerTask} method, its tables per
 * {@code wheel-timer.durable.initialize-schema}, and its lifecycle: started once the context is
 * refreshed, stopped (releasing what it holds to the other instances) when it closes, before the
 * wheel timers stop. {@code wheel-timer.durable.enabled=false}, or a {@link DurableTimer} bean of the
 * application's own, turns it off.
 *
 * <p>Its transactions are those of the application's {@link PlatformTransactionManager} (Boot's
 * JDBC one or JPA's), so {@code schedule} and {@code cancel} join the caller's
 * {@code @Transactional} work, and what a handler writes through the {@code DataSource} commits with
 * the removal of its timeout.
 *
 * <p>Data scheduled with a timeout is written and read as JSON by the application's Jackson
 * {@link JsonMapper} (a {@link DurableDataCodec} bean of the application's own replaces it; without
 * either, only {@code String} data is accepted). With Micrometer Tracing, each timeout carries the
 * trace context of its {@code schedule} to its runs ({@link TracingDurableTimeoutContext}).
 */
@AutoConfiguration(
        after = WheelTimerAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
            "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
            "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
            // After the tracers: Brave's, OpenTelemetry's and the no-op one all come before it.
            "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration"
        })
@ConditionalOnClass({JdbcDurableTimer.class, DataSourceScriptDatabaseInitializer.class})
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBooleanProperty(name = "wheel-timer.durable.enabled", matchIfMissing = true)
@ConditionalOnMissingBean(DurableTimer.class)
@EnableConfigurationProperties(DurableTimerProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public final class DurableTimerAutoConfiguration {

    /** The name of the wheel timer that {@link WheelTimerAutoConfiguration} defines. */
    static final String AUTO_CONFIGURED_TIMER = "wheelTimer";

    /** Only this context's: a post-processor in a parent context does not process this one's beans. */
    @Bean
    @ConditionalOnMissingBean(search = SearchStrategy.CURRENT)
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static DurableTimerTaskBeanPostProcessor durableTimerTaskBeanPostProcessor() {
        return new DurableTimerTaskBeanPostProcessor();
    }

    @Bean
    @ConditionalOnMissingBean
    DurableTimerSchemaInitializer durableTimerSchemaInitializer(
            DataSource dataSource, DurableTimerProperties properties) {
        return new DurableTimerSchemaInitializer(
                dataSource,
                DurableTimerSettings.tableName(properties.getTableName()),
                properties.getInitializeSchema());
    }

    @Bean
    DurableTimerHandlerExecutor durableTimerHandlerExecutor(ListableBeanFactory beanFactory, Environment environment) {
        return DurableTimerHandlerExecutor.pick(beanFactory, environment);
    }

    /**
     * Built with every handler method, but not started: {@link DurableTimerLifecycle} starts it. It
     * depends on the database initializers (this module's, Flyway's, Liquibase's), so its table
     * exists before it runs a statement.
     */
    @Bean
    @DependsOnDatabaseInitialization
    JdbcDurableTimer durableTimer(
            DataSource dataSource,
            DurableTimerProperties properties,
            ListableBeanFactory beanFactory,
            DurableTimerTaskBeanPostProcessor taskMethods,
            DurableTimerHandlerExecutor handlerExecutor,
            ObjectProvider<DurableTimerSchemaInitializer> schemaInitializer,
            ObjectProvider<PlatformTransactionManager> transactionManagers,
            ObjectProvider<DurableTimerListener> listeners,
            ObjectProvider<DurableDataCodec> codecs,
            ObjectProvider<DurableTimeoutContext> contexts,
            ObjectProvider<DurableTimerBuilderCustomizer> customizers) {
        schemaInitializer.ifAvailable(initializer -> {}); // the table before the timer, even without Boot's ordering
        String timerName = timerName(properties, beanFactory);
        Timer timer = beanFactory.getBean(timerName, Timer.class);
        JdbcDurableTimer.Builder builder =
                JdbcDurableTimer.builder(dataSource, transactionManager(transactionManagers, dataSource), timer);
        DurableTimerSettings.apply(properties, builder);
        builder.executor(handlerExecutor.executor());
        DurableDataCodec codec = codecs.getIfUnique();
        if (codec != null) {
            builder.dataCodec(codec);
        }
        contexts.ifUnique(builder::context);
        TaskRunObserver observer = observer(beanFactory, timerName);
        for (String task : taskMethods.handlers().keySet()) {
            builder.handler(task, new DurableTaskMethod(() -> taskMethods.handler(task), beanFactory, observer, codec));
        }
        listeners.orderedStream().forEach(builder::listener);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return DurableTimerSettings.build(builder);
    }

    /** The data of durable timeouts as JSON, by the application's Jackson {@code JsonMapper}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JsonMapper.class)
    @ConditionalOnBean(JsonMapper.class)
    static class JsonDataConfiguration {

        @Bean
        @ConditionalOnMissingBean
        DurableDataCodec durableDataCodec(JsonMapper jsonMapper) {
            return new JsonDurableDataCodec(jsonMapper);
        }
    }

    /** One trace from the schedule of a timeout to its runs, with Micrometer Tracing's {@link Tracer}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Tracer.class)
    @ConditionalOnBean(Tracer.class)
    static class TracingConfiguration {

        @Bean
        @ConditionalOnMissingBean
        DurableTimeoutContext durableTimeoutContext(Tracer tracer) {
            return new TracingDurableTimeoutContext(tracer);
        }
    }

    @Bean
    DurableTimerLifecycle durableTimerLifecycle(
            ApplicationContext context, JdbcDurableTimer durableTimer, DurableTimerHandlerExecutor handlerExecutor) {
        return new DurableTimerLifecycle(context, durableTimer, handlerExecutor);
    }

    /**
     * The application's transaction manager, which must manage the timer's {@code DataSource} (Boot's
     * {@code DataSourceTransactionManager} or JPA's manager); with none, one of the timer's own.
     */
    private static PlatformTransactionManager transactionManager(
            ObjectProvider<PlatformTransactionManager> managers, DataSource dataSource) {
        try {
            PlatformTransactionManager manager = managers.getIfAvailable();
            return manager != null ? manager : new JdbcTransactionManager(dataSource);
        } catch (NoUniqueBeanDefinitionException e) {
            throw new IllegalStateException(
                    "The durable timer runs its transactions with the PlatformTransactionManager of its DataSource,"
                            + " and there are several, none of them primary: " + e.getBeanNamesFound()
                            + "; mark the one that manages the DataSource @Primary",
                    e);
        }
    }

    /** The bean name of the wheel timer that fires the timeouts, checked. */
    static String timerName(DurableTimerProperties properties, ListableBeanFactory beanFactory) {
        String name = properties.getTimer() == null ? "" : properties.getTimer().trim();
        String[] timers = BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, Timer.class, true, false);
        if (name.isEmpty()) {
            if (beanFactory.containsBean(AUTO_CONFIGURED_TIMER)
                    && beanFactory.isTypeMatch(AUTO_CONFIGURED_TIMER, Timer.class)) {
                return AUTO_CONFIGURED_TIMER;
            }
            if (timers.length == 1) {
                return timers[0];
            }
            throw DurableTimerSettings.invalid(
                    "timer",
                    "",
                    "there is no auto-configured wheelTimer (wheel-timer.enabled=false, or the application defines"
                            + " its own Timer), so name the HashedWheelTimer bean that fires durable timeouts,"
                            + " or turn durable timeouts off with wheel-timer.durable.enabled=false;"
                            + " the Timer beans are " + Arrays.toString(timers));
        }
        if (!beanFactory.containsBean(name) || !beanFactory.isTypeMatch(name, Timer.class)) {
            throw DurableTimerSettings.invalid(
                    "timer",
                    name,
                    "must be the bean name of a HashedWheelTimer (or another io.wheeltimer.Timer), or empty for"
                            + " the auto-configured wheelTimer; the Timer beans are " + Arrays.toString(timers));
        }
        return name;
    }

    private static TaskRunObserver observer(ListableBeanFactory beanFactory, String timerName) {
        if (ClassUtils.isPresent(
                "io.micrometer.observation.ObservationRegistry",
                DurableTimerAutoConfiguration.class.getClassLoader())) {
            return ObservedTaskRuns.create(beanFactory, timerName);
        }
        return TaskRunObserver.NONE;
    }
}
