import { topicFor, topicPrefixFromEnv, TOPICS } from './topics';

describe('topicFor', () => {
  it('names the aggregate topics without a prefix', () => {
    expect(topicFor('identity', '')).toBe('gitlab.identity.events');
    expect(topicFor('projects', '')).toBe('gitlab.projects.events');
    expect(TOPICS.projects).toBe('gitlab.projects.events');
  });

  it('joins a prefix with a dot unless it already ends with a separator', () => {
    expect(topicFor('projects', 'test-1')).toBe('test-1.gitlab.projects.events');
    expect(topicFor('identity', 'test-1.')).toBe('test-1.gitlab.identity.events');
    expect(topicFor('identity', 'run-')).toBe('run-gitlab.identity.events');
  });

  it('defaults the prefix to KAFKA_TOPIC_PREFIX', () => {
    const saved = process.env.KAFKA_TOPIC_PREFIX;
    try {
      process.env.KAFKA_TOPIC_PREFIX = 'ci42';
      expect(topicFor('projects')).toBe('ci42.gitlab.projects.events');
      delete process.env.KAFKA_TOPIC_PREFIX;
      expect(topicFor('projects')).toBe('gitlab.projects.events');
    } finally {
      if (saved === undefined) delete process.env.KAFKA_TOPIC_PREFIX;
      else process.env.KAFKA_TOPIC_PREFIX = saved;
    }
    expect(topicPrefixFromEnv({})).toBe('');
  });

  it('rejects names Kafka would refuse and unknown aggregates', () => {
    expect(() => topicFor('projects', 'bad prefix')).toThrow(/invalid Kafka topic/);
    expect(() => topicFor('nope' as never, '')).toThrow(/unknown aggregate/);
  });
});
