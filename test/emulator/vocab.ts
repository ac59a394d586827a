// Vocabularies for the generated corpus: topics, journals, publishers, names, institutions,
// countries. Pure data; corpus.ts combines it with a seeded PRNG.

export const STUDY_TYPES = [
  'bench experiment',
  'case report',
  'case study',
  'case-control study',
  'cohort study',
  'commentary or perspective',
  'cross-sectional study',
  'field study',
  'historical or archival analysis',
  'interview study',
  'literature review',
  'longitudinal / panel data study',
  'meta-analysis',
  'mixed methods study',
  'non-randomized experimental study',
  'non-rct in vitro',
  'other',
  'rct',
  'systematic review',
  'theoretical, modeling, or simulation study',
  'non-rct experimental',
  'non-rct observational study',
  'animal',
] as const;
export type StudyType = (typeof STUDY_TYPES)[number];

export const DOMAINS = [
  'med', 'bio', 'cs', 'chem', 'psych', 'phys', 'mat', 'eng', 'env', 'bus', 'econ', 'math',
  'poli', 'agri', 'edu', 'soc', 'geol', 'geog', 'hist', 'art', 'philo', 'law', 'ling',
] as const;
export type Domain = (typeof DOMAINS)[number];

/** Every ISO 3166-1 alpha-2 code (used to decide which `country` values resolve). */
export const ISO_COUNTRIES = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
    'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR ' +
    'MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO ' +
    'RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV ' +
    'TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

/** Countries used in the corpus, weighted (code, weight). */
export const STUDY_COUNTRIES: readonly [string, number][] = [
  ['US', 22], ['GB', 9], ['CN', 10], ['DE', 6], ['JP', 4], ['CA', 4], ['AU', 4], ['FR', 4], ['IT', 3], ['ES', 3],
  ['NL', 3], ['SE', 2], ['BR', 4], ['IN', 5], ['KR', 3], ['IR', 2], ['TR', 2], ['CH', 2], ['DK', 2], ['NO', 2],
  ['FI', 1], ['PL', 2], ['BE', 1], ['AT', 1], ['IL', 1], ['ZA', 2], ['NG', 2], ['KE', 1], ['EG', 1], ['MX', 2],
  ['AR', 1], ['CL', 1], ['CO', 1], ['PT', 1], ['GR', 1], ['IE', 1], ['NZ', 1], ['SG', 1], ['TW', 1], ['TH', 1],
  ['VN', 1], ['PK', 1], ['BD', 1], ['ET', 1], ['GH', 1], ['SA', 1], ['RU', 1], ['UA', 1], ['CZ', 1], ['HU', 1],
  ['PE', 1], ['UG', 1], ['TZ', 1], ['MY', 1], ['ID', 1], ['PH', 1], ['IS', 1],
];

export const PUBLISHERS = [
  'Elsevier', 'Springer Nature', 'Wiley', 'Taylor & Francis', 'SAGE Publications', 'Oxford University Press',
  'Cambridge University Press', 'American Medical Association', 'BMJ Publishing Group', 'Massachusetts Medical Society',
  'Frontiers Media', 'MDPI', 'Public Library of Science', 'IEEE', 'Association for Computing Machinery',
  'American Psychological Association', 'Cold Spring Harbor Laboratory', 'Cornell University', 'De Gruyter',
  'Wolters Kluwer', 'American Chemical Society', 'IOP Publishing', 'Royal Society of Chemistry', 'Center for Open Science',
] as const;

export interface JournalDef {
  name: string;
  publisher: string;
  quartile: 1 | 2 | 3 | 4 | null;
  topMedical?: boolean;
  preprint?: boolean;
  domains: readonly string[];
}

export const JOURNALS: readonly JournalDef[] = [
  { name: 'The Lancet', publisher: 'Elsevier', quartile: 1, topMedical: true, domains: ['med'] },
  { name: 'New England Journal of Medicine', publisher: 'Massachusetts Medical Society', quartile: 1, topMedical: true, domains: ['med'] },
  { name: 'JAMA', publisher: 'American Medical Association', quartile: 1, topMedical: true, domains: ['med'] },
  { name: 'JAMA Internal Medicine', publisher: 'American Medical Association', quartile: 1, topMedical: true, domains: ['med'] },
  { name: 'BMJ', publisher: 'BMJ Publishing Group', quartile: 1, topMedical: true, domains: ['med'] },
  { name: 'Annals of Internal Medicine', publisher: 'American Medical Association', quartile: 1, topMedical: true, domains: ['med'] },
  { name: 'Nature Medicine', publisher: 'Springer Nature', quartile: 1, topMedical: true, domains: ['med', 'bio'] },
  { name: 'Sleep', publisher: 'Oxford University Press', quartile: 1, topMedical: true, domains: ['med', 'psych'] },
  { name: 'The American Journal of Clinical Nutrition', publisher: 'Elsevier', quartile: 1, topMedical: true, domains: ['med'] },
  { name: 'Circulation', publisher: 'Wolters Kluwer', quartile: 1, topMedical: true, domains: ['med'] },
  { name: 'BMJ Open', publisher: 'BMJ Publishing Group', quartile: 2, domains: ['med'] },
  { name: 'Journal of Sleep Research', publisher: 'Wiley', quartile: 2, domains: ['med', 'psych'] },
  { name: 'Nutrients', publisher: 'MDPI', quartile: 2, domains: ['med', 'bio', 'agri'] },
  { name: 'Journal of the International Society of Sports Nutrition', publisher: 'Taylor & Francis', quartile: 1, domains: ['med'] },
  { name: 'Medicine & Science in Sports & Exercise', publisher: 'Wolters Kluwer', quartile: 1, domains: ['med'] },
  { name: 'Brain, Behavior, and Immunity', publisher: 'Elsevier', quartile: 1, domains: ['med', 'bio', 'psych'] },
  { name: 'Psychological Medicine', publisher: 'Cambridge University Press', quartile: 1, domains: ['psych', 'med'] },
  { name: 'Journal of Consulting and Clinical Psychology', publisher: 'American Psychological Association', quartile: 1, domains: ['psych'] },
  { name: 'Behaviour Research and Therapy', publisher: 'Elsevier', quartile: 1, domains: ['psych'] },
  { name: 'Frontiers in Psychology', publisher: 'Frontiers Media', quartile: 2, domains: ['psych', 'edu', 'ling'] },
  { name: 'Mindfulness', publisher: 'Springer Nature', quartile: 2, domains: ['psych'] },
  { name: 'Cyberpsychology, Behavior, and Social Networking', publisher: 'SAGE Publications', quartile: 2, domains: ['psych', 'soc'] },
  { name: 'Gut Microbes', publisher: 'Taylor & Francis', quartile: 1, domains: ['bio', 'med'] },
  { name: 'Cell Host & Microbe', publisher: 'Elsevier', quartile: 1, domains: ['bio'] },
  { name: 'Journal of Bone and Mineral Research', publisher: 'Wiley', quartile: 1, domains: ['med', 'bio'] },
  { name: 'European Journal of Nutrition', publisher: 'Springer Nature', quartile: 2, domains: ['med', 'chem'] },
  { name: 'Food Chemistry', publisher: 'Elsevier', quartile: 1, domains: ['chem', 'agri'] },
  { name: 'Environmental Health Perspectives', publisher: 'Wolters Kluwer', quartile: 1, domains: ['env', 'med'] },
  { name: 'Atmospheric Environment', publisher: 'Elsevier', quartile: 2, domains: ['env', 'geog'] },
  { name: 'Nature Climate Change', publisher: 'Springer Nature', quartile: 1, domains: ['env', 'geog'] },
  { name: 'Global Change Biology', publisher: 'Wiley', quartile: 1, domains: ['env', 'bio', 'agri'] },
  { name: 'Agricultural and Forest Meteorology', publisher: 'Elsevier', quartile: 1, domains: ['agri', 'env'] },
  { name: 'Field Crops Research', publisher: 'Elsevier', quartile: 2, domains: ['agri'] },
  { name: 'Journal of Machine Learning Research', publisher: 'Association for Computing Machinery', quartile: 1, domains: ['cs', 'math'] },
  { name: 'IEEE Transactions on Pattern Analysis and Machine Intelligence', publisher: 'IEEE', quartile: 1, domains: ['cs', 'eng'] },
  { name: 'ACM Computing Surveys', publisher: 'Association for Computing Machinery', quartile: 1, domains: ['cs'] },
  { name: 'Neural Computation', publisher: 'De Gruyter', quartile: 2, domains: ['cs', 'math', 'bio'] },
  { name: 'Advanced Energy Materials', publisher: 'Wiley', quartile: 1, domains: ['mat', 'chem', 'eng'] },
  { name: 'Journal of Power Sources', publisher: 'Elsevier', quartile: 1, domains: ['mat', 'eng', 'chem'] },
  { name: 'ACS Energy Letters', publisher: 'American Chemical Society', quartile: 1, domains: ['chem', 'mat'] },
  { name: 'Physical Review B', publisher: 'IOP Publishing', quartile: 1, domains: ['phys', 'mat'] },
  { name: 'New Journal of Physics', publisher: 'IOP Publishing', quartile: 2, domains: ['phys', 'math'] },
  { name: 'Journal of Chemical Education', publisher: 'American Chemical Society', quartile: 3, domains: ['chem', 'edu'] },
  { name: 'Review of Educational Research', publisher: 'SAGE Publications', quartile: 1, domains: ['edu'] },
  { name: 'Computers & Education', publisher: 'Elsevier', quartile: 1, domains: ['edu', 'cs'] },
  { name: 'Educational Psychology Review', publisher: 'Springer Nature', quartile: 1, domains: ['edu', 'psych'] },
  { name: 'American Economic Review', publisher: 'Cambridge University Press', quartile: 1, domains: ['econ'] },
  { name: 'Journal of Labor Economics', publisher: 'Oxford University Press', quartile: 1, domains: ['econ', 'bus'] },
  { name: 'Industrial Relations Journal', publisher: 'Wiley', quartile: 3, domains: ['econ', 'bus', 'soc'] },
  { name: 'Journal of Business Ethics', publisher: 'Springer Nature', quartile: 1, domains: ['bus', 'philo'] },
  { name: 'American Political Science Review', publisher: 'Cambridge University Press', quartile: 1, domains: ['poli'] },
  { name: 'Journal of European Public Policy', publisher: 'Taylor & Francis', quartile: 1, domains: ['poli', 'law'] },
  { name: 'Social Science & Medicine', publisher: 'Elsevier', quartile: 1, domains: ['soc', 'med'] },
  { name: 'New Media & Society', publisher: 'SAGE Publications', quartile: 1, domains: ['soc'] },
  { name: 'Water Resources Research', publisher: 'Wiley', quartile: 1, domains: ['geol', 'env', 'geog'] },
  { name: 'Journal of Geophysical Research: Solid Earth', publisher: 'Wiley', quartile: 1, domains: ['geol'] },
  { name: 'Hydrogeology Journal', publisher: 'Springer Nature', quartile: 2, domains: ['geol', 'geog'] },
  { name: 'Medical History', publisher: 'Cambridge University Press', quartile: 2, domains: ['hist', 'med'] },
  { name: 'Journal of the History of Ideas', publisher: 'De Gruyter', quartile: 2, domains: ['hist', 'philo'] },
  { name: 'Art Bulletin', publisher: 'Taylor & Francis', quartile: 3, domains: ['art', 'hist'] },
  { name: 'Leonardo', publisher: 'De Gruyter', quartile: 3, domains: ['art', 'cs'] },
  { name: 'Philosophy of Science', publisher: 'Cambridge University Press', quartile: 1, domains: ['philo'] },
  { name: 'Harvard Law Review', publisher: 'Wolters Kluwer', quartile: 1, domains: ['law'] },
  { name: 'European Journal of Risk Regulation', publisher: 'Cambridge University Press', quartile: 2, domains: ['law', 'poli'] },
  { name: 'Bilingualism: Language and Cognition', publisher: 'Cambridge University Press', quartile: 1, domains: ['ling', 'psych'] },
  { name: 'Applied Linguistics', publisher: 'Oxford University Press', quartile: 1, domains: ['ling', 'edu'] },
  { name: 'Regional Journal of Applied Sciences', publisher: 'MDPI', quartile: 4, domains: ['eng', 'mat', 'env', 'agri'] },
  { name: 'International Journal of Community Health', publisher: 'SAGE Publications', quartile: 4, domains: ['med', 'soc'] },
  { name: 'Bulletin of Social Inquiry', publisher: 'De Gruyter', quartile: 4, domains: ['soc', 'poli', 'hist', 'edu'] },
  { name: 'Journal of Emerging Computing', publisher: 'IEEE', quartile: 3, domains: ['cs', 'eng'] },
  { name: 'PLOS ONE', publisher: 'Public Library of Science', quartile: 1, domains: ['med', 'bio', 'psych', 'env', 'soc', 'agri'] },
  { name: 'Scientific Reports', publisher: 'Springer Nature', quartile: 1, domains: ['bio', 'phys', 'chem', 'geol', 'med', 'mat'] },
  { name: 'Heliyon', publisher: 'Elsevier', quartile: 2, domains: ['eng', 'env', 'chem', 'bus', 'edu'] },
  { name: 'Cureus', publisher: 'Springer Nature', quartile: null, domains: ['med'] },
  { name: 'International Journal of Interdisciplinary Studies', publisher: 'Wiley', quartile: null, domains: ['soc', 'art', 'ling', 'philo', 'math'] },
  { name: 'medRxiv', publisher: 'Cold Spring Harbor Laboratory', quartile: null, preprint: true, domains: ['med'] },
  { name: 'bioRxiv', publisher: 'Cold Spring Harbor Laboratory', quartile: null, preprint: true, domains: ['bio', 'chem'] },
  { name: 'arXiv', publisher: 'Cornell University', quartile: null, preprint: true, domains: ['cs', 'phys', 'math', 'mat', 'eng', 'econ'] },
  { name: 'PsyArXiv', publisher: 'Center for Open Science', quartile: null, preprint: true, domains: ['psych', 'ling', 'edu'] },
  { name: 'SocArXiv', publisher: 'Center for Open Science', quartile: null, preprint: true, domains: ['soc', 'poli', 'law', 'hist', 'art', 'philo', 'bus', 'geog', 'geol', 'env', 'agri'] },
];

export type DesignFamily = 'clinical' | 'social' | 'lab' | 'humanities' | 'computational';

/** Study-type weights per design family (every study type appears in at least one family). */
export const DESIGN_WEIGHTS: Record<DesignFamily, readonly [StudyType, number][]> = {
  clinical: [
    ['rct', 16], ['meta-analysis', 8], ['systematic review', 8], ['cohort study', 10], ['case-control study', 5],
    ['cross-sectional study', 8], ['case report', 3], ['case study', 1], ['non-randomized experimental study', 4],
    ['non-rct experimental', 4], ['non-rct observational study', 5], ['literature review', 5], ['animal', 6],
    ['non-rct in vitro', 3], ['bench experiment', 1], ['longitudinal / panel data study', 3], ['commentary or perspective', 2],
    ['other', 1], ['mixed methods study', 1], ['interview study', 1],
  ],
  social: [
    ['cross-sectional study', 10], ['longitudinal / panel data study', 10], ['field study', 8], ['interview study', 8],
    ['mixed methods study', 6], ['rct', 6], ['non-rct observational study', 5], ['meta-analysis', 4], ['systematic review', 4],
    ['literature review', 4], ['case study', 4], ['theoretical, modeling, or simulation study', 3], ['commentary or perspective', 2],
    ['non-randomized experimental study', 3], ['non-rct experimental', 3], ['other', 1], ['historical or archival analysis', 1],
  ],
  lab: [
    ['bench experiment', 14], ['non-rct in vitro', 8], ['theoretical, modeling, or simulation study', 10], ['field study', 6],
    ['non-rct experimental', 6], ['literature review', 5], ['systematic review', 2], ['meta-analysis', 2], ['case study', 2],
    ['animal', 2], ['other', 2], ['commentary or perspective', 1], ['longitudinal / panel data study', 2],
  ],
  humanities: [
    ['historical or archival analysis', 18], ['case study', 6], ['literature review', 6], ['commentary or perspective', 6],
    ['interview study', 4], ['theoretical, modeling, or simulation study', 3], ['other', 4], ['mixed methods study', 2],
    ['cross-sectional study', 2],
  ],
  computational: [
    ['theoretical, modeling, or simulation study', 16], ['bench experiment', 6], ['non-rct experimental', 6],
    ['literature review', 5], ['systematic review', 3], ['meta-analysis', 1], ['case study', 3], ['field study', 2],
    ['cross-sectional study', 2], ['other', 2], ['commentary or perspective', 1],
  ],
};

export interface TopicDef {
  key: string;
  domains: readonly string[];
  family: DesignFamily;
  /** Typical population for empirical studies. */
  population: 'human' | 'other';
  exposures: readonly string[];
  outcomes: readonly string[];
  populations: readonly string[];
  mechanisms: readonly string[];
  instruments: readonly string[];
  weight: number;
  /** Behavioural topics: no animal, in vitro or bench studies. */
  noLab?: boolean;
}

export const TOPICS: readonly TopicDef[] = [
  {
    key: 'creatine', domains: ['med', 'psych', 'bio'], family: 'clinical', population: 'human', weight: 9,
    exposures: ['creatine supplementation', 'creatine monohydrate', 'oral creatine', 'creatine loading', 'dietary creatine'],
    outcomes: ['cognitive performance', 'working memory', 'short-term memory', 'reasoning ability', 'mental fatigue', 'cognition', 'processing speed'],
    populations: ['older adults', 'vegetarians', 'young adults', 'sleep-deprived adults', 'university students', 'patients with depression'],
    mechanisms: ['brain phosphocreatine', 'cerebral energy metabolism', 'ATP resynthesis', 'mitochondrial function'],
    instruments: ['Stroop task', 'n-back task', "Raven's Advanced Progressive Matrices", 'magnetic resonance spectroscopy', 'digit span test'],
  },
  {
    key: 'sleep', domains: ['med', 'psych', 'bio'], family: 'clinical', population: 'human', weight: 10,
    exposures: ['sleep deprivation', 'total sleep deprivation', 'sleep restriction', 'daytime napping', 'shift work', 'insomnia'],
    outcomes: ['memory consolidation', 'episodic memory', 'working memory', 'sustained attention', 'emotional regulation', 'reaction time'],
    populations: ['healthy adults', 'adolescents', 'night-shift nurses', 'older adults', 'medical residents', 'university students'],
    mechanisms: ['hippocampal replay', 'slow-wave sleep', 'synaptic homeostasis', 'REM sleep', 'circadian misalignment'],
    instruments: ['polysomnography', 'psychomotor vigilance task', 'actigraphy', 'Pittsburgh Sleep Quality Index', 'word-pair learning task'],
  },
  {
    key: 'exercise', domains: ['med', 'psych'], family: 'clinical', population: 'human', weight: 9,
    exposures: ['aerobic exercise', 'resistance training', 'high-intensity interval training', 'physical activity', 'walking programmes'],
    outcomes: ['depressive symptoms', 'blood pressure', 'cardiorespiratory fitness', 'all-cause mortality', 'executive function', 'insulin sensitivity'],
    populations: ['older adults', 'patients with type 2 diabetes', 'sedentary adults', 'children', 'postmenopausal women', 'cancer survivors'],
    mechanisms: ['brain-derived neurotrophic factor', 'endothelial function', 'reduced inflammation', 'mitochondrial biogenesis'],
    instruments: ['VO2max test', 'Beck Depression Inventory', 'accelerometry', 'ambulatory blood pressure monitoring', 'Trail Making Test'],
  },
  {
    key: 'cbt', domains: ['psych', 'med'], family: 'clinical', population: 'human', weight: 7, noLab: true,
    exposures: ['cognitive behavioral therapy', 'internet-delivered CBT', 'CBT for insomnia', 'exposure therapy', 'group CBT'],
    outcomes: ['anxiety symptoms', 'depression', 'insomnia severity', 'panic disorder', 'relapse', 'quality of life'],
    populations: ['adults with generalized anxiety disorder', 'adolescents', 'veterans with PTSD', 'primary care patients', 'older adults'],
    mechanisms: ['cognitive restructuring', 'behavioural activation', 'fear extinction', 'sleep restriction therapy'],
    instruments: ['GAD-7', 'PHQ-9', 'Insomnia Severity Index', 'Hamilton Anxiety Rating Scale', 'clinician-rated interviews'],
  },
  {
    key: 'mindfulness', domains: ['psych', 'med'], family: 'clinical', population: 'human', weight: 5, noLab: true,
    exposures: ['mindfulness meditation', 'mindfulness-based stress reduction', 'yoga', 'breathing exercises', 'app-based meditation'],
    outcomes: ['perceived stress', 'burnout', 'cortisol levels', 'attention control', 'wellbeing', 'rumination'],
    populations: ['healthcare workers', 'university students', 'teachers', 'patients with chronic pain', 'employees'],
    mechanisms: ['attentional control', 'reduced rumination', 'hypothalamic-pituitary-adrenal axis regulation'],
    instruments: ['Perceived Stress Scale', 'Maslach Burnout Inventory', 'salivary cortisol', 'Five Facet Mindfulness Questionnaire'],
  },
  {
    key: 'microbiome', domains: ['bio', 'med', 'agri'], family: 'clinical', population: 'human', weight: 6,
    exposures: ['probiotic supplementation', 'dietary fibre', 'antibiotic exposure', 'faecal microbiota transplantation', 'fermented foods'],
    outcomes: ['gut microbiota diversity', 'intestinal inflammation', 'irritable bowel syndrome symptoms', 'metabolic health', 'immune response'],
    populations: ['infants', 'patients with inflammatory bowel disease', 'healthy adults', 'children with obesity', 'older adults'],
    mechanisms: ['short-chain fatty acids', 'intestinal barrier function', 'butyrate production', 'the gut-brain axis'],
    instruments: ['16S rRNA sequencing', 'shotgun metagenomics', 'faecal calprotectin', 'IBS Symptom Severity Score'],
  },
  {
    key: 'vitamind', domains: ['med', 'bio'], family: 'clinical', population: 'human', weight: 6,
    exposures: ['vitamin D supplementation', 'vitamin D deficiency', 'cholecalciferol', 'sun exposure'],
    outcomes: ['fracture risk', 'bone mineral density', 'respiratory infections', 'muscle strength', 'falls'],
    populations: ['older adults', 'postmenopausal women', 'children', 'nursing home residents', 'pregnant women'],
    mechanisms: ['calcium absorption', 'innate immunity', 'parathyroid hormone suppression'],
    instruments: ['dual-energy X-ray absorptiometry', 'serum 25-hydroxyvitamin D', 'grip strength dynamometry'],
  },
  {
    key: 'caffeine', domains: ['med', 'chem'], family: 'clinical', population: 'human', weight: 5,
    exposures: ['coffee consumption', 'caffeine intake', 'green tea', 'energy drinks'],
    outcomes: ['cardiovascular risk', 'liver disease', 'alertness', 'sleep quality', 'type 2 diabetes risk'],
    populations: ['adults', 'pregnant women', 'athletes', 'adolescents', 'patients with hypertension'],
    mechanisms: ['adenosine receptor antagonism', 'polyphenol antioxidants', 'chlorogenic acids'],
    instruments: ['food frequency questionnaires', 'liquid chromatography', 'Karolinska Sleepiness Scale'],
  },
  {
    key: 'airpollution', domains: ['env', 'med'], family: 'clinical', population: 'human', weight: 5,
    exposures: ['fine particulate matter', 'traffic-related air pollution', 'nitrogen dioxide', 'wildfire smoke'],
    outcomes: ['asthma incidence', 'cardiovascular mortality', 'lung function', 'preterm birth', 'cognitive decline'],
    populations: ['children', 'urban residents', 'pregnant women', 'older adults', 'outdoor workers'],
    mechanisms: ['oxidative stress', 'systemic inflammation', 'airway remodelling'],
    instruments: ['land-use regression models', 'spirometry', 'satellite aerosol optical depth'],
  },
  {
    key: 'climate', domains: ['env', 'agri', 'geog', 'econ'], family: 'lab', population: 'other', weight: 8,
    exposures: ['rising temperatures', 'drought stress', 'climate change', 'elevated CO2', 'irrigation', 'heat waves'],
    outcomes: ['crop yields', 'wheat production', 'soil carbon', 'water use efficiency', 'food security', 'maize yields'],
    populations: ['smallholder farms', 'the Sahel', 'European croplands', 'the North China Plain', 'rain-fed agriculture'],
    mechanisms: ['photosynthetic inhibition', 'evapotranspiration', 'shortened growing seasons'],
    instruments: ['crop simulation models', 'eddy covariance towers', 'remote sensing', 'field trials'],
  },
  {
    key: 'ml', domains: ['cs', 'math', 'eng'], family: 'computational', population: 'other', weight: 9,
    exposures: ['deep learning', 'transformer models', 'convolutional neural networks', 'gradient boosting', 'transfer learning', 'large language models'],
    outcomes: ['classification accuracy', 'medical image segmentation', 'text summarization', 'anomaly detection', 'generalization', 'energy consumption'],
    populations: ['benchmark datasets', 'electronic health records', 'satellite imagery', 'source code repositories', 'low-resource languages'],
    mechanisms: ['self-attention', 'regularization', 'data augmentation', 'overparameterization'],
    instruments: ['ImageNet', 'cross-validation', 'ablation studies', 'the GLUE benchmark', 'ROC analysis'],
  },
  {
    key: 'energy', domains: ['mat', 'chem', 'phys', 'eng'], family: 'lab', population: 'other', weight: 7,
    exposures: ['perovskite solar cells', 'lithium-ion batteries', 'solid-state electrolytes', 'silicon anodes', 'catalytic coatings'],
    outcomes: ['power conversion efficiency', 'cycle life', 'ionic conductivity', 'thermal stability', 'degradation rate'],
    populations: ['thin films', 'coin cells', 'pouch cells', 'nanostructured electrodes'],
    mechanisms: ['defect passivation', 'dendrite suppression', 'interfacial engineering', 'charge-carrier recombination'],
    instruments: ['X-ray diffraction', 'scanning electron microscopy', 'electrochemical impedance spectroscopy', 'density functional theory'],
  },
  {
    key: 'physics', domains: ['phys', 'math'], family: 'computational', population: 'other', weight: 4,
    exposures: ['quantum entanglement', 'topological insulators', 'superconducting qubits', 'dark matter models'],
    outcomes: ['decoherence times', 'error correction thresholds', 'phase transitions', 'spectral properties'],
    populations: ['two-dimensional lattices', 'trapped-ion systems', 'cosmological simulations'],
    mechanisms: ['spin-orbit coupling', 'symmetry breaking', 'renormalization'],
    instruments: ['Monte Carlo simulation', 'tensor network methods', 'cryogenic measurements'],
  },
  {
    key: 'education', domains: ['edu', 'soc', 'psych'], family: 'social', population: 'human', weight: 7,
    exposures: ['online learning', 'formative feedback', 'peer tutoring', 'flipped classrooms', 'growth mindset interventions', 'class size reduction'],
    outcomes: ['student achievement', 'reading comprehension', 'mathematics performance', 'school engagement', 'dropout rates'],
    populations: ['primary school pupils', 'secondary school students', 'undergraduates', 'disadvantaged students', 'teachers'],
    mechanisms: ['self-regulated learning', 'retrieval practice', 'teacher expectations'],
    instruments: ['standardized tests', 'classroom observations', 'learning analytics', 'PISA data'],
  },
  {
    key: 'labor', domains: ['econ', 'bus', 'poli', 'soc'], family: 'social', population: 'human', weight: 6,
    exposures: ['minimum wage increases', 'remote work', 'universal basic income', 'automation', 'unionization'],
    outcomes: ['employment', 'wage inequality', 'productivity', 'job satisfaction', 'firm profitability'],
    populations: ['low-wage workers', 'small firms', 'OECD countries', 'gig workers', 'manufacturing employees'],
    mechanisms: ['monopsony power', 'labour substitution', 'search frictions'],
    instruments: ['difference-in-differences', 'administrative payroll data', 'synthetic control methods', 'panel surveys'],
  },
  {
    key: 'socialmedia', domains: ['psych', 'soc'], family: 'social', population: 'human', weight: 6,
    exposures: ['social media use', 'screen time', 'smartphone use', 'online harassment', 'passive scrolling'],
    outcomes: ['adolescent depression', 'loneliness', 'body image', 'self-esteem', 'sleep duration'],
    populations: ['adolescents', 'young adults', 'girls aged 11 to 15', 'university students'],
    mechanisms: ['social comparison', 'displacement of sleep', 'fear of missing out'],
    instruments: ['ecological momentary assessment', 'screen-time logs', 'Rosenberg Self-Esteem Scale'],
  },
  {
    key: 'groundwater', domains: ['geol', 'env', 'geog'], family: 'lab', population: 'other', weight: 5,
    exposures: ['groundwater depletion', 'induced seismicity', 'aquifer recharge', 'wastewater injection', 'glacier retreat'],
    outcomes: ['land subsidence', 'earthquake frequency', 'water table decline', 'river discharge', 'slope stability'],
    populations: ['the Central Valley', 'Oklahoma', 'the Indo-Gangetic Basin', 'alpine catchments'],
    mechanisms: ['pore pressure diffusion', 'sediment compaction', 'fault reactivation'],
    instruments: ['InSAR', 'GRACE satellite gravimetry', 'seismic catalogues', 'piezometers'],
  },
  {
    key: 'history', domains: ['hist', 'art', 'philo', 'med'], family: 'humanities', population: 'other', weight: 5,
    exposures: ['the 1918 influenza pandemic', 'Renaissance workshops', 'colonial botanical gardens', 'early photography', 'Enlightenment salons'],
    outcomes: ['public health institutions', 'artistic practice', 'scientific networks', 'medical ethics', 'visual culture'],
    populations: ['European cities', 'the Dutch Republic', 'Meiji Japan', 'the Ottoman Empire', 'colonial India'],
    mechanisms: ['patronage', 'print culture', 'correspondence networks'],
    instruments: ['archival correspondence', 'parish registers', 'museum inventories', 'newspaper corpora'],
  },
  {
    key: 'law', domains: ['law', 'poli', 'philo'], family: 'humanities', population: 'other', weight: 4,
    exposures: ['data protection regulation', 'algorithmic decision-making', 'constitutional review', 'AI regulation'],
    outcomes: ['judicial accountability', 'privacy rights', 'regulatory compliance', 'democratic legitimacy'],
    populations: ['the European Union', 'common-law jurisdictions', 'administrative agencies', 'national courts'],
    mechanisms: ['proportionality analysis', 'transparency obligations', 'liability rules'],
    instruments: ['case law analysis', 'comparative legal analysis', 'regulatory impact assessments'],
  },
  {
    key: 'bilingual', domains: ['ling', 'edu', 'psych'], family: 'social', population: 'human', weight: 4,
    exposures: ['bilingualism', 'second language immersion', 'code-switching', 'early language exposure'],
    outcomes: ['executive control', 'vocabulary growth', 'reading acquisition', 'language attrition'],
    populations: ['bilingual children', 'heritage speakers', 'adult learners', 'older bilinguals'],
    mechanisms: ['inhibitory control', 'cross-linguistic transfer', 'phonological awareness'],
    instruments: ['flanker task', 'picture naming tasks', 'eye-tracking', 'corpus analysis'],
  },
];

export const FIRST_NAMES_LATIN = [
  'Anna', 'James', 'Maria', 'David', 'Sarah', 'Michael', 'Laura', 'Thomas', 'Emily', 'Daniel', 'Olivia', 'Lucas',
  'Sophie', 'Mateo', 'Chloé', 'François', 'Jürgen', 'Łukasz', 'José', 'Inês', 'Søren', 'Zoë', 'Ángel', 'Björn',
  'Małgorzata', 'Çağla', 'Noémie', 'Dvořák', 'Aoife', 'Siobhán', 'Priya', 'Kwame', 'Amara', 'Tomás', 'Rūta', 'Håkon',
];
export const LAST_NAMES_LATIN = [
  'Smith', 'Johnson', 'Brown', 'Garcia', 'Miller', 'Wilson', 'Taylor', 'Anderson', 'Thompson', 'Martin', 'Rossi',
  'Sandkühler', 'Müller', 'Ñúñez', 'Øster', 'Nowak', 'Kowalczyk', 'Lefèvre', 'Gonçalves', 'Şahin', 'Nguyễn', 'Đặng',
  'Jørgensen', 'Müller-Lüdenscheidt', "O'Brien", 'van der Berg', 'de la Cruz', 'Björklund', 'Ólafsdóttir', 'Kovačević',
  'Dubois', 'Okafor', 'Mensah', 'Patel', 'Singh', 'Hernández', 'Fernández', 'Schäfer', 'Żukowski', 'Štěpánek',
];
/** Whole names in non-Latin scripts. */
export const NAMES_NON_LATIN = [
  '李伟', '王芳', '张敏', '刘洋', '陈静', 'Иван Иванов', 'Ольга Смирнова', 'Дмитрий Козлов', 'محمد العلي', 'فاطمة الزهراء',
  '田中 裕子', '佐藤 健', '鈴木 花子', 'Ελένη Παπαδοπούλου', 'Γιώργος Νικολάου', '김민준', '이서연', 'אברהם כהן', 'प्रिया शर्मा',
];
export const GROUP_AUTHORS = [
  'The SLEEP-COG Collaborative Group', 'Global Burden of Disease Collaborators', 'The CREATINE Trial Investigators',
  'Writing Committee for the ACTIVE Study',
];

export const INSTITUTIONS = [
  'University of Oxford', 'Karolinska Institutet', 'Universität Heidelberg', 'Université de Montréal', 'ETH Zürich',
  'Peking University', 'Universidade de São Paulo', 'Sorbonne Université', 'University of Toronto', 'Harvard Medical School',
  'Stanford University', 'University of Cape Town', 'University of Melbourne', 'National University of Singapore',
  'Tsinghua University', 'University of Tokyo', '東京大学', 'Københavns Universitet', 'Uniwersytet Jagielloński',
  'Universidad Nacional Autónoma de México', 'Seoul National University', 'Indian Institute of Science', 'University of Nairobi',
  'Max Planck Institute for Human Cognitive and Brain Sciences', 'Technische Universität München', 'University of Lagos',
  'McGill University', 'Universitat de Barcelona', 'Aristotle University of Thessaloniki', 'Tel Aviv University',
  'Lomonosov Moscow State University', 'King Saud University', 'University of Edinburgh', 'Wageningen University & Research',
];

/**
 * Title decorations with characters that need escaping in BibTeX, LaTeX or Markdown
 * (& % $ # _ { } ~ ^ \ * [ ] < > `). Applied to a share of titles.
 */
export const TITLE_DECORATIONS: readonly ((t: string) => string)[] = [
  (t) => t.replace(/ and /, ' & '),
  (t) => `${t}: 50% vs. 100% of the recommended dose`,
  (t) => `${t} [version 2; peer review: 2 approved]`,
  (t) => `${t}: is it worth the $200 per year?`,
  (t) => `${t} using the R package {brms}`,
  (t) => `${t} (#2 in the series)`,
  (t) => `${t} in <i>Drosophila</i>`,
  (t) => `${t}: a \\LaTeX{}-typeset reanalysis`,
  (t) => `${t} ~ a reappraisal`,
  (t) => `${t} with R^2 > 0.5`,
  (t) => `${t}: the \`tidyverse\` workflow`,
  (t) => `${t} *revisited*`,
  (t) => `${t} with CO_2 and NO_x covariates`,
  (t) => `${t} & beyond: <5% attrition`,
];

export const STOPWORDS = new Set(
  (
    'a an and are as at be been but by for from has have in into is it its of on or that the their there these this ' +
    'to was were which with within without we our than then they them what when where who whom why how does do did ' +
    'vs versus about after before between among over under can could may might should would will also not no'
  ).split(' '),
);

// ---------------------------------------------------------------------------------------------
// Odd names and titles. Drawn by corpus.ts from a second PRNG stream for a share of papers, so
// the papers of the main stream keep their values where no oddity lands (tests pinned to them
// keep working). Each list names one form the toolchain proof must cover (see coverage.ts).

/** Person names by form. Every value is a plausible name as a service would return it, verbatim. */
export const ODD_PERSON_NAMES = {
  chinese: ['王小明', '张伟', '李娜', '陈思远', '杨雪', '黄晓东', '赵丽', '吴婷婷', '欧阳明', '司马晓'],
  japaneseSpaced: ['山田 太郎', '高橋 さくら', '伊藤 美咲', '渡辺 翔太', '小林 優子', '中村 健一', '加藤 あゆみ'],
  japaneseUnspaced: ['山本陽子', '松本大輝', '井上真理', '木村拓也', '佐々木希美', '斎藤ひかり'],
  korean: ['박지훈', '최수진', '정하은', '강도윤', '조민서', '윤서준', '남궁민', '황보영', '김 지원'],
  russian: ['Алексей Петров', 'Наталья Кузнецова', 'Сергей Волков', 'Екатерина Соколова', 'Фёдор Михайлов', 'Артём Лебедев'],
  // Ukrainian letters і ї є ґ and the modifier-letter apostrophe (U+02BC) of Мар'яна.
  ukrainian: ['Олександр Коваленко', 'Наталія Шевченко', 'Юрій Бондаренко', 'Ірина Ткаченко', 'Євген Кравчук', 'Ґалина Мельник', 'Марʼяна Їжакевич', 'Ольга Мʼякота'],
  // Serbian Cyrillic letters ђ ј љ њ ћ џ.
  serbian: ['Ђорђе Јовановић', 'Љиљана Петровић', 'Милош Николић', 'Јелена Ђукић', 'Његош Стојановић', 'Џемал Хоџић'],
  greek: ['Ευάγγελος Παπαδόπουλος', 'Αικατερίνη Οικονόμου', 'Χρήστος Παπαϊωάννου', 'Δημήτρης Γεωργίου', 'Σοφία Κωνσταντινίδου'],
  // Stacked accents (ễ, ồ, ậ) and horn letters (ơ, ư); family name first.
  vietnamese: [
    'Nguyễn Văn An', 'Trương Thị Mai', 'Phạm Minh Tuấn', 'Đỗ Hùng Cường', 'Huỳnh Thị Ngọc Hân', 'Lê Thị Hồng',
    'Trần Quốc Bảo', 'Võ Thị Hương', 'Bùi Xuân Phượng', 'Dương Quốc Việt',
  ],
  arabic: ['أحمد بن علي', 'نور الهدى الحسيني', 'عبد الله الخطيب', 'ليلى منصور', 'يوسف القاسمي', 'سارة عبد الرحمن'],
  hebrew: ['שרה לוי', 'יוסף בן-דוד', 'מרים פרידמן', 'דניאל אברמוביץ', 'נועה שפירא', 'ג׳ורג׳ חדד'],
  devanagari: ['अमित कुमार', 'सुनीता देवी', 'राजेश गुप्ता', 'अनन्या त्रिपाठी', 'विक्रम सिंह', 'श्रुति पाण्डेय'],
  thai: ['สมชาย ใจดี', 'สุดารัตน์ วงศ์สวัสดิ์', 'ประยุทธ์ ศรีสุข', 'กนกวรรณ ทองดี', 'ณัฐพล แก้วมณี'],
  // Lower-case particles as BibTeX's "von" part.
  particles: [
    'Pieter van der Meer', 'Lotte van der Linden', 'Inés de la Torre', 'Ana de la Fuente', 'Friederike von Hagen',
    'Konrad von Lilienfeld', 'Marco di Stefano', 'Chiara di Lorenzo', 'João da Silva', 'Beatriz da Costa', 'Ana dos Santos',
    'Rafael dos Reis', 'Jan ten Brink', 'Sanne ten Have', 'Ahmad bin Ismail', 'Rahman bin Yusof', 'Khalid al-Rashid',
    'Layla al-Hashimi', 'Hassan al-Amin', "Marieke van 't Veer", "Joost van 't Hof", 'João Pedro da Silva dos Santos',
  ],
  // Capitalised or Gaelic particles, inner capitals, Spanish double surnames with "y".
  particlesOther: [
    'Griet Van den Broeck', 'Koen De Smet', 'Lucia Di Giacomo', 'Paulo Da Silva', 'Yann Le Gall', 'Omar Al-Farsi',
    'Seán Ó Súilleabháin', 'Máire Ní Bhriain', 'Ewan MacLeod', 'Fiona McAllister', 'Chantal LeBlanc',
    'María José García y López', 'Juan Carlos Pérez y Pérez',
  ],
  suffixes: ['John Smith Jr.', 'Robert Lee Carter, Jr.', 'William Grant III', 'Henry Adams II', 'Carlos Pérez Sr.', 'George Hall IV', 'James Wilson, III'],
  hyphens: ['Jean-Pierre Dubois', 'Anna-Lena Schmidt-Rüdiger', 'Mary-Kate Lloyd-Jones', 'Hans-Jürgen Meyer-Lindenberg', 'Ji-woo Park', 'Kim Soo-jin'],
  apostrophesStraight: ["Niamh O'Sullivan", "Marco Dell'Acqua", "Aminata N'Diaye", "Liam O'Reilly", "Kelly D'Souza"],
  apostrophesCurly: ['Francesca D’Angelo', 'Ciarán O’Brien', 'Moussa N’Dour', 'Giulia Dell’Orto', 'Patrick O’Neill'],
  // Letters outside Latin-1 (and the Latin-1 letters BibTeX styles still stumble on: Þ þ ð ß Ø).
  beyondLatin1: [
    'Đorđe Đukić', 'Þórdís Þorsteinsdóttir', 'Sigríður Aðalsteinsdóttir', 'Ásþór Guðmundsson', 'Łucja Ładyńska', 'Işıl Yıldırım', 'Aslı Kılıç',
    'Günther Weiß', 'Ernst Großmann', 'Øyvind Ødegård', 'Ŋoné Faye', 'Ŋaaŋ Sarr', 'Máret Áŋŋá Sara', 'Gergő Szűcs', 'Ildikó Kőrösi', 'Réka Fűzfa',
    'Ștefan Țurcanu', 'Ioana Mureșan', 'Cristiana Pițigoi', 'Mihaela Pașcu', 'Răzvan Ișfan', 'Tuğba Doğan', 'Ağahan Yılmaz', 'Žofie Řeháková', 'Mārtiņš Bērziņš',
  ],
  mononyms: ['Sutrisno', 'Mulyadi', 'Suharyanto', 'Wahyuni'],
  initials: ['J. R. Smith', 'A.B. Jones', 'J.-P. Lefèvre', 'M. K. Okafor', 'K. L. Brennan'],
  // Family name, then initials without periods (PubMed's form).
  vancouver: ['Smith JA', 'Garcia-Lopez M', 'Nguyen TT', 'van der Berg PJ'],
  familyInCapitals: ['DUPONT Jean', 'MARTIN Sophie', 'LEROY Claire', 'Jean-Luc MOREAU'],
  // Already inverted by the source.
  inverted: ['Smith, John', 'García Márquez, Ana', 'Okonkwo, Chinwe'],
} as const satisfies Record<string, readonly string[]>;
export type OddNameForm = keyof typeof ODD_PERSON_NAMES;

/** Corporate (group) authors with every common wording; some contain "and", "&" or commas. */
export const CORPORATE_AUTHORS = [
  'The UK Biobank Sleep Consortium', 'International Creatine and Cognition Consortium', 'The 1000 Genomes Project Consortium',
  'GBD 2021 Diseases and Injuries Collaborators', 'Lancet Countdown Collaborators',
  'ATLAS Collaboration', 'Emerging Risk Factors Collaboration', 'NCD Risk Factor Collaboration (NCD-RisC)',
  'RECOVERY Collaborative Group', 'ESC Scientific Document Group', 'Cochrane Airways Group',
  'American Academy of Pediatrics Committee on Nutrition', 'Joint Committee on Vaccination and Immunisation',
  'Writing Committee for the REMAP-CAP Investigators', 'Writing Committee for the Women’s Health Initiative',
  'CKD-EPI Investigators', 'PREDIMED Study Investigators',
  'US Preventive Services Task Force', 'WHO Guideline Development Task Force', 'Task Force on Sleep & Cognition of the European Academy of Neurology',
  'British Society of Gastroenterology Working Party', 'Working Party on Creatine Supplementation',
  'IARC Working Group on the Evaluation of Carcinogenic Risks to Humans', 'Working Group on Bilingualism and Ageing',
  'European Sleep Research Network', 'Microbiome Quality Control Network (MBQC)',
  'Alliance for Climate-Smart Agriculture', 'Global Alliance for Genomics and Health',
  'Women’s Health Initiative Investigators', 'Global Microbiome Initiative',
  'Expert Panel on Detection, Evaluation, and Treatment of High Blood Cholesterol in Adults',
  'EFSA Panel on Nutrition, Novel Foods and Food Allergens (NDA)',
  'ENIGMA-Sleep Study Group', 'Tübingen Longitudinal Study Group', 'Nurses’ Health Study Group',
  'Research & Development Group, Dutch Sleep Society', 'Prevention & Early Intervention Committee',
  'University of Oxford COVID-19 Vaccine Trial Group', 'Stanford University Sleep Epidemiology Research Network',
  'Ministry of Health, Labour and Welfare (Japan)', 'Ministry of Health and Family Welfare, Government of India',
  'Ministère de la Santé et de la Prévention', 'Ministry of Education of the People’s Republic of China',
  'Deutsche Gesellschaft für Schlafforschung und Schlafmedizin (DGSM)', '中华医学会神经病学分会', 'Российское общество сомнологов',
  'on behalf of the ESPRIT Study Group', 'the PREVENT Investigators',
] as const;

/**
 * Title forms: each turns a generated title into one carrying the form. Grouped by what they
 * exercise; coverage.ts recognises the forms in the final text, not by which function ran.
 */
export const ODD_TITLE_FORMS: readonly ((t: string) => string)[] = [
  // Greek letters in running text.
  (t) => `${t}: a role for α-synuclein?`,
  (t) => `${t} and TNF-α signalling`,
  (t) => `${t} via κ-opioid receptors`,
  (t) => `${t} with β-alanine co-supplementation`,
  (t) => `${t} after Δ-9-tetrahydrocannabinol exposure`,
  (t) => `${t}: IL-1β, IFN-γ and NF-κB pathways`,
  // Mathematical symbols.
  (t) => `${t} in adults aged ≥65 years`,
  (t) => `${t} at doses ≤10 mg/kg`,
  (t) => `${t}: a mean change of 0.3 ± 0.1`,
  (t) => `${t}: a 2 × 2 factorial design`,
  (t) => `${t} (n ≈ 12,000)`,
  (t) => `${t}: exposure → response pathways`,
  (t) => `${t} at 37 °C`,
  (t) => `${t} with 50 µg/day supplementation`,
  // Quotes and apostrophes, curly and straight.
  (t) => `${t}: a “natural experiment”`,
  (t) => `${t}: ‘real-world’ evidence`,
  (t) => `${t} in Parkinson’s disease`,
  (t) => `${t} in Alzheimer's disease`,
  (t) => `${t}: the "healthy user" effect`,
  (t) => `${t}: patients’ and carers’ perspectives`,
  (t) => `“${t}”: a commentary`,
  // Dashes, ellipsis.
  (t) => `${t}, 1990–2020`,
  (t) => `${t} — a reappraisal`,
  (t) => `${t}… and beyond`,
  (t) => `${t}: more is better … or is it?`,
  // Superscripts, subscripts, HTML markup of the service.
  (t) => `${t} per 100 m²`,
  (t) => `${t} and Ca²⁺ signalling`,
  (t) => `${t}: effects at 10⁻³ M`,
  (t) => `${t} under CO₂ enrichment`,
  (t) => `${t} and CO<sub>2</sub> uptake`,
  (t) => `${t}: thresholds of 10<sup>−3</sup>`,
  // Proper nouns in a sentence-case title (regions, periods, eponyms, methods named after people).
  (t) => `${t}: evidence from Brazil, Nigeria and Viet Nam`,
  (t) => `${t} in the Sahel`,
  (t) => `${t} across the Indo-Gangetic Basin`,
  (t) => `${t} since the Enlightenment`,
  (t) => `${t}: a Bayesian hierarchical model`,
  (t) => `${t} with Gaussian process regression`,
  (t) => `${t}: a hidden Markov model`,
  (t) => `${t} using Kaplan–Meier estimates`,
  (t) => `${t} in Sjögren’s syndrome`,
  (t) => `${t} in the Middle Ages and the Global South`,
  // Acronyms and mixed case; titles that start with a lower-case letter or a digit.
  (t) => `${t} during the COVID-19 pandemic`,
  (t) => `${t} after SARS-CoV-2 infection`,
  (t) => `${t}: mRNA expression profiles`,
  (t) => `${t} at low pH`,
  (t) => `${t} and DNA methylation`,
  (t) => `${t} in iPSC-derived neurons`,
  (t) => `mRNA signatures of ${t.charAt(0).toLowerCase()}${t.slice(1)}`,
  (t) => `iPSC models of ${t.charAt(0).toLowerCase()}${t.slice(1)}`,
  (t) => `pH-dependent ${t.charAt(0).toLowerCase()}${t.slice(1)}`,
  (t) => `25-Hydroxyvitamin D and ${t.charAt(0).toLowerCase()}${t.slice(1)}`,
  // Every LaTeX, BibTeX and Markdown special, in the contexts where they occur in real titles.
  (t) => `${t}: 95% CI [0.8, 1.2]`,
  (t) => `${t} in [18F]FDG PET`,
  (t) => `${t}: $k$-means clustering with $O(n \\log n)$ cost`,
  (t) => `${t} with \`scikit-learn\` and \`lme4\``,
  (t) => `${t} and the #MeToo movement`,
  (t) => `${t}: 100% renewable?`,
  (t) => `${t} ~20 years on`,
  (t) => `${t} in C++ & R`,
  (t) => `${t}: e^x growth curves`,
  (t) => `${t} in the UK_Biobank extract`,
  (t) => `${t}: <5 years vs >65 years`,
  (t) => `${t} in _Arabidopsis thaliana_`,
  (t) => `${t}: a **bold** claim`,
  (t) => `${t}: estimating P(relapse | treatment)`,
  (t) => `${t} | Research Letter`,
  (t) => `${t} with {curly} braces and \\textit{emphasis}`,
  (t) => `${t}: the @WHO guidance`,
  // Translated title in brackets (PubMed's form for non-English articles) and non-Latin script.
  (t) => `[${t}]`,
  (t) => `${t}: 系统综述与荟萃分析`,
  (t) => `${t}: систематический обзор`,
];

/** Words kept in lower case by Title Case (the first word and the word after a colon are capitalised anyway). */
export const TITLE_CASE_SMALL_WORDS = new Set(
  'a an and as at but by for from in into nor of on or per the to vs vs. via with'.split(' '),
);

/** Proper nouns the odd titles and the topic vocabulary put inside sentence-case titles. */
export const TITLE_PROPER_NOUNS = [
  'Sahel', 'Indo-Gangetic Basin', 'Enlightenment', "Alzheimer's", 'Parkinson’s', 'Sjögren’s', 'Bayesian', 'Gaussian', 'Markov',
  'Kaplan–Meier', 'Brazil', 'Nigeria', 'Viet Nam', 'Middle Ages', 'Global South', 'North China Plain', 'Central Valley',
  'Oklahoma', 'Dutch Republic', 'Ottoman Empire', 'Meiji Japan', 'European Union', 'Renaissance', 'European',
] as const;
